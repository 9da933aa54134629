/// The strip at the foot of every sheet: a scale bar to check the print with a ruler, and a line saying
/// what the page holds.
extension Canvas {
    /// The longest round scale bar (from the style's list) that fits `width`.
    public func scaleBarLength(fitting width: Double) -> Double? {
        style.footer.scaleBarLengths.sorted(by: >).first { $0 <= width }
    }

    /// Draws the footer inside the margins at the bottom of `page`.
    public func drawFooter(page: PageSize, margin: Double, description: String) {
        let footer = style.footer
        let left = margin
        let width = page.width.millimetres - 2 * margin
        let lineHeight = footer.fontSize * style.label.lineHeight
        let barTop = page.height.millimetres - margin - style.footerHeight + footer.gapAbove
        if let length = scaleBarLength(fitting: width) {
            // Alternate black and white segments, outlined: readable against a ruler at both ends.
            let segment = min(footer.scaleBarSegment, length)
            let count = Int((length / segment).rounded())
            let blacks = stride(from: 0, to: count, by: 2).map {
                Rect(x: left + Double($0) * segment, y: barTop, width: min(segment, length - Double($0) * segment),
                     height: footer.scaleBarThickness)
            }
            fill(blacks)
            stroke(Rect(x: left, y: barTop, width: length, height: footer.scaleBarThickness), lineWidth: 0.1)
            text("this bar must measure \(Length.format(length)) mm: print at 100% (actual size, no fit-to-page)",
                 x: left, baseline: barTop + footer.scaleBarThickness + lineHeight, size: footer.fontSize,
                 maxWidth: width)
        }
        text(description, x: left, baseline: barTop + footer.scaleBarThickness + 2 * lineHeight,
             size: footer.fontSize, maxWidth: width, color: .gray(0.25))
    }
}
