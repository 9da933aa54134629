import CCairo
import Foundation

/// Pages to print: a size each and a closure that draws it in millimetres, origin top-left.
public struct SheetDocument {
    public struct Page {
        public let size: PageSize
        public let draw: (Canvas) -> Void
        public init(size: PageSize, draw: @escaping (Canvas) -> Void) {
            self.size = size
            self.draw = draw
        }
    }

    public var title: String
    public var pages: [Page]

    public init(title: String, pages: [Page]) {
        self.title = title
        self.pages = pages
    }

    /// Renders every page with Cairo: one PDF holding all pages, or one SVG/PNG per page.
    public func render(as format: OutputFormat, dpi: Double = 300) throws -> [Data] {
        let style = try SheetStyle.bundled()
        switch format {
        case .pdf: return [try renderPDF(style: style)]
        case .svg: return try pages.map { try renderSVG($0, style: style) }
        case .png: return try pages.map { try renderPNG($0, dpi: dpi, style: style) }
        }
    }

    /// The resolutions a PNG sheet may be rendered at, in dots per inch.
    public static let resolutions = 10.0...4800

    /// Pixel size of a page rendered at `dpi`; a side beyond Int (or not a number) is Int.max, never a trap.
    public static func pixelSize(of page: PageSize, dpi: Double) -> (width: Int, height: Int) {
        func pixels(_ length: Length) -> Int {
            let value = (length.inches * dpi).rounded()
            return value.isFinite && abs(value) < 9e18 ? Int(value) : Int.max
        }
        return (pixels(page.width), pixels(page.height))
    }

    /// Cairo's image surfaces stop at 32767 pixels a side.
    public static let maxPixelsPerSide = 32767

    private func renderPDF(style: SheetStyle) throws -> Data {
        let sink = ByteSink()
        let first = pages.first?.size ?? PageSize(name: "empty", width: .mm(210), height: .mm(297))
        let surface = cairo_pdf_surface_create_for_stream(writeToSink, sink.pointer, first.width.points, first.height.points)
        defer { cairo_surface_destroy(surface) }
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, MarkerKitVersion.generator)
        let cairo = cairo_create(surface)!
        defer { cairo_destroy(cairo) }
        for page in pages {
            cairo_pdf_surface_set_size(surface, page.size.width.points, page.size.height.points)
            cairo_save(cairo)
            cairo_scale(cairo, 72 / 25.4, 72 / 25.4)
            page.draw(Canvas(cairo: cairo, style: style))
            cairo_restore(cairo)
            cairo_show_page(cairo)
        }
        try finish(surface, cairo, what: "PDF")
        return sink.data
    }

    private func renderSVG(_ page: Page, style: SheetStyle) throws -> Data {
        let sink = ByteSink()
        // With the document unit set to mm, Cairo writes the surface's numbers with "mm" appended:
        // the surface is created in millimetres and drawn in millimetres.
        let surface = cairo_svg_surface_create_for_stream(writeToSink, sink.pointer,
                                                          page.size.width.millimetres, page.size.height.millimetres)
        defer { cairo_surface_destroy(surface) }
        cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_MM)
        let cairo = cairo_create(surface)!
        defer { cairo_destroy(cairo) }
        // Paper is white; an SVG viewer's background may not be.
        cairo_set_source_rgb(cairo, 1, 1, 1)
        cairo_paint(cairo)
        page.draw(Canvas(cairo: cairo, style: style))
        try finish(surface, cairo, what: "SVG")
        return sink.data
    }

    private func renderPNG(_ page: Page, dpi: Double, style: SheetStyle) throws -> Data {
        try InputRange.check(dpi, in: Self.resolutions, "a resolution of")
        let (width, height) = Self.pixelSize(of: page.size, dpi: dpi)
        guard width <= Self.maxPixelsPerSide, height <= Self.maxPixelsPerSide, width > 0, height > 0 else {
            throw MarkerKitError.invalidArgument(
                "at \(Length.format(dpi)) dpi, \(page.size) is \(width) x \(height) pixels; PNG pages stop at \(Self.maxPixelsPerSide) a side: lower the resolution or write PDF/SVG")
        }
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height))
        defer { cairo_surface_destroy(surface) }
        let cairo = cairo_create(surface)!
        defer { cairo_destroy(cairo) }
        cairo_set_source_rgb(cairo, 1, 1, 1)
        cairo_paint(cairo)
        cairo_scale(cairo, dpi / 25.4, dpi / 25.4)
        page.draw(Canvas(cairo: cairo, style: style))
        cairo_surface_flush(surface)
        let sink = ByteSink()
        let status = cairo_surface_write_to_png_stream(surface, writeToSink, sink.pointer)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw MarkerKitError.internalFailure("Cairo could not encode the PNG: \(String(cString: cairo_status_to_string(status)))")
        }
        return try PNGResolution.setting(dpi: dpi, in: sink.data)
    }

    private func finish(_ surface: OpaquePointer?, _ cairo: OpaquePointer, what: String) throws {
        let drawing = cairo_status(cairo)
        cairo_surface_finish(surface)
        let status = drawing != CAIRO_STATUS_SUCCESS ? drawing : cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw MarkerKitError.internalFailure("Cairo could not draw the \(what): \(String(cString: cairo_status_to_string(status)))")
        }
    }
}

/// Collects what a Cairo stream surface writes.
private final class ByteSink {
    var data = Data()
    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

private let writeToSink: cairo_write_func_t = { closure, bytes, length in
    guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
    Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
    return CAIRO_STATUS_SUCCESS
}
