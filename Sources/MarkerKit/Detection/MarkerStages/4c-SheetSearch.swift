/// Stage 4c: a second look round a sheet of touching markers read at full size (ArUco's marker chessboard,
/// a tight grid). Only the narrowest threshold windows give hole borders as candidates
/// (`DetectorParameters.holeBordersUpToWindow`); in the wider ones a large blurred marker's border is a
/// band along each edge, joined to its neighbours' at the shared corners, so its outer border runs round
/// the sheet and only the band's hole border outlines the marker (touching renders 139 and 198 of seed 7
/// at 1280x720: 113-120 px markers, blur 0.9-1.2 px, lost while OpenCV read them). Where markers read
/// touch others, the hole borders of the next wider window (`sheetWindow`) within a marker's side of
/// them are traced from the frame's binary image and their candidates read; frames without such a sheet
/// pay nothing more.
extension MarkerDetector {
    func searchSheet(in image: GrayImage, limits: ClosedRange<Int>, workspace: DetectorWorkspace, timings: inout StageTimings?,
                     markers: inout [MarkerDetection]) throws {
        let p = parameters
        guard markers.count >= 2, let k = Self.sheetWindow(p) else { return }
        var sides = workspace.sheetSides, found = workspace.localQuads, local = workspace.localMarkers
        (workspace.sheetSides, workspace.localQuads, workspace.localMarkers) = ([], [], [])
        defer { (workspace.sheetSides, workspace.localQuads, workspace.localMarkers) = (sides, found, local) }
        let sheet = measure("sheet search", &timings) { () -> LocalSearch.Box? in
            LocalSearch.sheetSides(markers: markers, cells: dictionary.markerSize + 2, into: &sides)
            return Self.sheetBox(markers: markers, sides: sides, imageWidth: image.width, imageHeight: image.height)
        }
        guard let sheet, workspace.binaryWidth == image.width, workspace.binaryHeight == image.height else { return }
        found.removeAll(keepingCapacity: true)
        let size = image.width * image.height
        try measure("sheet search", &timings) {
            try workspace.binaries.withUnsafeBufferPointer { binaries in
                let pass = workspace.passes[k]
                pass.contours.removeAll()
                try Contours.findHoles(in: binaries.baseAddress! + k * size + sheet.y0 * image.width + sheet.x0, width: sheet.width,
                                       height: sheet.height, stride: image.width, minPoints: limits.lowerBound, maxPoints: limits.upperBound,
                                       workspace: pass.trace, into: &pass.contours)
                pass.quads.removeAll(keepingCapacity: true)
                // Hole borders inside a marker read (its code's light blobs) are passed over before their polygons.
                let contours = pass.contours
                try QuadCandidates.appendQuads(from: contours, imageWidth: sheet.width, imageHeight: sheet.height, parameters: p,
                                               minLength: limits.lowerBound, passingOver: { index in
                    let centre = Self.boxCentre(contours, index, x0: sheet.x0, y0: sheet.y0)
                    return markers.contains { SceneGeometry.contains($0.quad, centre) }
                }, to: &pass.quads)
                for quad in pass.quads {
                    let moved = quad.map { Point2(x: $0.x + Double(sheet.x0), y: $0.y + Double(sheet.y0)) }.outset(by: p.contourOutset)
                    // Inside a marker read: its own band, or a blob of its code.
                    let centre = moved.center
                    guard !markers.contains(where: { SceneGeometry.contains($0.quad, centre) }) else { continue }
                    found.append(moved)
                }
            }
            QuadCandidates.removeDuplicates(&found, rate: p.duplicateDistanceRate, nestedRate: p.nestedPerimeterRate, scratch: &workspace.keyedQuads)
        }
        guard !found.isEmpty else { return }
        try readCandidates(found, in: image, workspace: workspace, timings: &timings, into: &local)
        markers.append(contentsOf: local)
    }

    /// The index of the narrowest threshold window wider than those that give hole borders (13 px by
    /// default): there the band round a blurred 113-120 px marker is closed; the widest adds nothing there
    /// and would double the cost. Nil when every window gives hole borders already.
    static func sheetWindow(_ p: DetectorParameters) -> Int? {
        var next: Int?
        for (k, window) in p.thresholdWindows.enumerated() where window > p.holeBordersUpToWindow {
            if next.map({ window < p.thresholdWindows[$0] }) ?? true { next = k }
        }
        return next
    }

    /// The middle of contour `index`'s bounding box, moved by (x0, y0).
    static func boxCentre(_ contours: Contours.ContourSet, _ index: Int, x0: Int, y0: Int) -> Point2 {
        var low = (x: Int32.max, y: Int32.max), high = (x: Int32.min, y: Int32.min)
        contours.points.withUnsafeBufferPointer { points in
            for k in Int(contours.offsets[index])..<Int(contours.offsets[index + 1]) {
                let x = points[2 * k], y = points[2 * k + 1]
                low = (min(low.x, x), min(low.y, y))
                high = (max(high.x, x), max(high.y, y))
            }
        }
        return Point2(x: Double(x0) + (Double(low.x) + Double(high.x)) / 2, y: Double(y0) + (Double(low.y) + Double(high.y)) / 2)
    }

    /// The box round the markers that touch others (`sides` > 0), a marker's side wider on every side
    /// (where a marker the sheet holds but nobody read lies), within the image; nil without such markers.
    static func sheetBox(markers: [MarkerDetection], sides: [Double], imageWidth: Int, imageHeight: Int) -> LocalSearch.Box? {
        var low = (x: Double.infinity, y: Double.infinity), high = (x: -Double.infinity, y: -Double.infinity)
        for (marker, side) in zip(markers, sides) where side > 0 {
            for i in 0..<4 {
                let c = marker.quad[i]
                low = (min(low.x, c.x - side), min(low.y, c.y - side))
                high = (max(high.x, c.x + side), max(high.y, c.y + side))
            }
        }
        guard low.x <= high.x else { return nil }
        let box = LocalSearch.Box(x0: max(0, Int(low.x.rounded(.down))), y0: max(0, Int(low.y.rounded(.down))),
                                  x1: min(imageWidth, Int(high.x.rounded(.up)) + 1), y1: min(imageHeight, Int(high.y.rounded(.up)) + 1))
        return box.width >= 8 && box.height >= 8 ? box : nil
    }
}
