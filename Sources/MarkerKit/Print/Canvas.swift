import CCairo

/// A rectangle in millimetres, origin at the page's top-left, y down.
public struct Rect: Equatable, Sendable {
    public var x, y, width, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public func insetBy(_ d: Double) -> Rect { Rect(x: x + d, y: y + d, width: width - 2 * d, height: height - 2 * d) }
}

/// An RGB colour, components 0...1.
public struct Color: Sendable {
    /// A colour per index, distinct for neighbours (for plotting views).
    public static func palette(_ i: Int) -> Color {
        let colors = [Color(0.12, 0.47, 0.71), Color(1.0, 0.5, 0.05), Color(0.17, 0.63, 0.17), Color(0.84, 0.15, 0.16),
                      Color(0.58, 0.4, 0.74), Color(0.55, 0.34, 0.29), Color(0.89, 0.47, 0.76), Color(0.5, 0.5, 0.5),
                      Color(0.74, 0.74, 0.13), Color(0.09, 0.75, 0.81)]
        return colors[((i % colors.count) + colors.count) % colors.count]
    }

    public let r, g, b: Double
    public init(_ r: Double, _ g: Double, _ b: Double) { self.r = r; self.g = g; self.b = b }
    public static let black = Color(0, 0, 0)
    public static let white = Color(1, 1, 1)
    public static func gray(_ v: Double) -> Color { Color(v, v, v) }
}

/// The drawing operations sheets need, in millimetres on a Cairo context. Every Cairo call of the
/// drawing code goes through here.
public struct Canvas {
    public enum Alignment { case left, center, right }

    let cairo: OpaquePointer
    public let style: SheetStyle

    /// Fills the union of `rects` as one path, so abutting cells show no seams.
    public func fill(_ rects: [Rect], color: Color = .black) {
        guard !rects.isEmpty else { return }
        cairo_new_path(cairo)
        for r in rects { cairo_rectangle(cairo, r.x, r.y, r.width, r.height) }
        cairo_set_fill_rule(cairo, CAIRO_FILL_RULE_WINDING)
        setColor(color)
        cairo_fill(cairo)
    }

    public func stroke(_ rect: Rect, lineWidth: Double, color: Color = .black, dash: [Double] = []) {
        cairo_new_path(cairo)
        cairo_rectangle(cairo, rect.x, rect.y, rect.width, rect.height)
        strokePath(lineWidth: lineWidth, color: color, dash: dash)
    }

    public func line(from a: (Double, Double), to b: (Double, Double), lineWidth: Double, color: Color = .black) {
        cairo_new_path(cairo)
        cairo_move_to(cairo, a.0, a.1)
        cairo_line_to(cairo, b.0, b.1)
        strokePath(lineWidth: lineWidth, color: color, dash: [])
    }

    public func circle(center: (Double, Double), radius: Double, color: Color, filled: Bool = true, lineWidth: Double = 0.1) {
        cairo_new_path(cairo)
        cairo_arc(cairo, center.0, center.1, radius, 0, 2 * Double.pi)
        if filled {
            setColor(color)
            cairo_fill(cairo)
        } else {
            strokePath(lineWidth: lineWidth, color: color, dash: [])
        }
    }

    public func polyline(_ points: [(Double, Double)], lineWidth: Double, color: Color = .black) {
        guard let first = points.first else { return }
        cairo_new_path(cairo)
        cairo_move_to(cairo, first.0, first.1)
        for p in points.dropFirst() { cairo_line_to(cairo, p.0, p.1) }
        strokePath(lineWidth: lineWidth, color: color, dash: [])
    }

    /// Restricts drawing to `rect` while `body` runs.
    public func clipped(to rect: Rect, _ body: () -> Void) {
        cairo_save(cairo)
        cairo_rectangle(cairo, rect.x, rect.y, rect.width, rect.height)
        cairo_clip(cairo)
        body()
        cairo_restore(cairo)
    }

    /// Width of `text` at `size` (mm).
    public func textWidth(_ text: String, size: Double, bold: Bool = false) -> Double {
        setFont(size: size, bold: bold)
        var extents = cairo_text_extents_t()
        cairo_text_extents(cairo, text, &extents)
        return extents.x_advance
    }

    /// Draws one line of text with its baseline at `y`; shrinks the font so it never exceeds `maxWidth`.
    public func text(_ text: String, x: Double, baseline y: Double, size: Double, align: Alignment = .left,
                     maxWidth: Double? = nil, color: Color = .black, bold: Bool = false) {
        var size = size
        if let maxWidth, maxWidth > 0 {
            let width = textWidth(text, size: size, bold: bold)
            if width > maxWidth { size *= maxWidth / width }
        }
        let width = textWidth(text, size: size, bold: bold)
        let startX: Double
        switch align {
        case .left: startX = x
        case .center: startX = x - width / 2
        case .right: startX = x - width
        }
        setFont(size: size, bold: bold)
        setColor(color)
        cairo_move_to(cairo, startX, y)
        cairo_show_text(cairo, text)
        cairo_new_path(cairo)
    }

    private func setFont(size: Double, bold: Bool) {
        cairo_select_font_face(cairo, style.fontFamily, CAIRO_FONT_SLANT_NORMAL,
                               bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cairo, size)
    }

    private func setColor(_ c: Color) { cairo_set_source_rgb(cairo, c.r, c.g, c.b) }

    private func strokePath(lineWidth: Double, color: Color, dash: [Double]) {
        cairo_set_line_width(cairo, lineWidth)
        dash.withUnsafeBufferPointer { cairo_set_dash(cairo, $0.baseAddress, Int32($0.count), 0) }
        setColor(color)
        cairo_stroke(cairo)
        cairo_set_dash(cairo, nil, 0, 0)
    }
}
