import MarkerKitKernels

/// Stage 4b, for frames searched at reduced size: a second look at full resolution around the small dark
/// blobs of the reduced search where no marker was read.
///
/// At half size a marker of 15-25 px has cells of about 1.3 px: its border merges with its code or with
/// print beside it after thresholding, and its outline is no longer a clean 4-gon, though the same
/// marker traces cleanly at full resolution (as OpenCV, which searches at full size, finds it). Every
/// such marker is still a dark blob at half size. The blobs of a plausible size and shape become seeds;
/// seeds inside a marker already read are dropped (its own cells); the rest, padded and merged into
/// regions, are thresholded and traced again at full resolution with the full-size windows and
/// perimeter limits, and their candidates read like any other.
enum LocalSearch {
    /// A rectangle of pixels, `x0..<x1` by `y0..<y1`.
    struct Box: Equatable, Sendable {
        var x0, y0, x1, y1: Int
        var width: Int { x1 - x0 }
        var height: Int { y1 - y0 }

        func overlaps(_ other: Box) -> Bool { x0 < other.x1 && other.x0 < x1 && y0 < other.y1 && other.y0 < y1 }
        func union(_ other: Box) -> Box { Box(x0: min(x0, other.x0), y0: min(y0, other.y0), x1: max(x1, other.x1), y1: max(y1, other.y1)) }
    }

    /// A blob longer or wider than this many times its other side is not a marker seen at up to ~70
    /// degrees of tilt (a line of text, an edge of a sheet).
    static let maxAspect = 3.5

    /// The contour lengths (points, in the reduced search image) that make a seed: from half the
    /// candidates' own lower limit (blobs a little short of it, since blur and merging change a small
    /// marker's outline most) up to the outline of a square `maxSide` full-size pixels wide.
    static func seedLengths(candidateLimits: ClosedRange<Int>, factor: Int, maxSide: Double) -> ClosedRange<Int>? {
        guard maxSide > 0, factor > 1 else { return nil }
        let low = max(8, candidateLimits.lowerBound / 2)
        let high = Int(4 * (maxSide / Double(factor)))
        return low <= high ? low...high : nil
    }

    /// The bounding boxes (search pixels) of the contours of `contours` whose length is in `lengths` and
    /// whose shape could be a marker, appended to `seeds`. A marker's outline stays a compact convex blob
    /// at reduced size even where it no longer traces as a clean 4-gon: its polygon at a looser tolerance
    /// (`seedAccuracyRate` of its length, against 0.03 for candidates) has 4 to 6 vertices, is convex,
    /// and the contour fills at least `seedFill` of it. Text, texture and merged print rarely do: on the
    /// real photos this keeps about one blob in eight, and every one of the markers that needed it.
    static func appendSeeds(from contours: Contours.ContourSet, lengths: ClosedRange<Int>, to seeds: inout [Box]) throws {
        try withUnsafeTemporaryAllocation(of: Int32.self, capacity: 16) { vertices in
            try contours.points.withUnsafeBufferPointer { points in
                for index in 0..<contours.count where lengths.contains(contours.length(index)) {
                    let first = Int(contours.offsets[index]), end = Int(contours.offsets[index + 1])
                    var box = Box(x0: Int.max, y0: Int.max, x1: Int.min, y1: Int.min)
                    for k in first..<end {
                        let x = Int(points[2 * k]), y = Int(points[2 * k + 1])
                        box = Box(x0: min(box.x0, x), y0: min(box.y0, y), x1: max(box.x1, x + 1), y1: max(box.y1, y + 1))
                    }
                    let long = Double(max(box.width, box.height)), short = Double(min(box.width, box.height))
                    guard short >= 3, long <= maxAspect * short else { continue }
                    let count = Int(try Bridge.check(mkk_simplify_contour(points.baseAddress! + 2 * first, Int32(end - first),
                                                                          seedAccuracyRate * Double(end - first), vertices.baseAddress, 8)))
                    guard (4...6).contains(count), isConvex(vertices.baseAddress!, count) else { continue }
                    let polygon = abs(area(vertices.baseAddress!, count))
                    guard polygon > 0, abs(area(points.baseAddress! + 2 * first, end - first)) >= seedFill * polygon else { continue }
                    seeds.append(box)
                }
            }
        }
    }

    /// Polygon tolerance for seeds, relative to the contour's length.
    static let seedAccuracyRate = 0.05
    /// Least part of its polygon a seed's contour covers.
    static let seedFill = 0.8

    /// Twice the signed area of the closed polygon of `count` points (x, y pairs), by the shoelace formula.
    static func area(_ p: UnsafePointer<Int32>, _ count: Int) -> Double {
        var sum = 0
        for i in 0..<count {
            let j = i + 1 == count ? 0 : i + 1
            sum += Int(p[2 * i]) * Int(p[2 * j + 1]) - Int(p[2 * j]) * Int(p[2 * i + 1])
        }
        return Double(sum)
    }

    /// Whether every turn of the closed polygon goes the same way.
    static func isConvex(_ p: UnsafePointer<Int32>, _ count: Int) -> Bool {
        var positive = 0, negative = 0
        for i in 0..<count {
            let j = (i + 1) % count, k = (i + 2) % count
            let cross = (Int(p[2 * j]) - Int(p[2 * i])) * (Int(p[2 * k + 1]) - Int(p[2 * i + 1]))
                - (Int(p[2 * j + 1]) - Int(p[2 * i + 1])) * (Int(p[2 * k]) - Int(p[2 * i]))
            if cross > 0 { positive += 1 } else if cross < 0 { negative += 1 }
        }
        return positive == 0 || negative == 0
    }

    /// The regions (full-size pixels) to search again, added to `regions`: each seed not centred inside a
    /// marker already read and at most `maxSide` wide at full size, padded by half its size (at least
    /// `minPadding` pixels) for the quiet zone and the part of the marker the blob may have missed,
    /// overlapping ones merged. Seeds near a sheet of touching markers are padded by a marker's side: a
    /// seed where a neighbour of a marker that touches another (`sheetSides[i]` > 0, its side) would lie
    /// is a piece of a neighbour the reduced search lost (at half size the bands of touching markers join,
    /// or a code's edges run into the ring whose hole border is the marker's outline), and the neighbour
    /// lies up to a marker's side from it. `pads` holds each seed's padding from an earlier call (-1: not
    /// searched); a seed is searched again only when its padding grows (markers found since touch it).
    static func addRegions(seeds: [Box], factor: Int, imageWidth: Int, imageHeight: Int, markers: [MarkerDetection], sheetSides: [Double],
                           maxSide: Double, minPadding: Int = 8, pads: inout [Int], into regions: inout [Box]) {
        if pads.count != seeds.count {
            pads.removeAll(keepingCapacity: true)
            pads.append(contentsOf: repeatElement(-1, count: seeds.count))
        }
        for (index, seed) in seeds.enumerated() {
            let box = Box(x0: seed.x0 * factor, y0: seed.y0 * factor, x1: seed.x1 * factor, y1: seed.y1 * factor)
            let side = max(box.width, box.height)
            guard Double(side) <= maxSide else { continue }
            let centre = Point2(x: Double(box.x0 + box.x1) / 2, y: Double(box.y0 + box.y1) / 2)
            if markers.contains(where: { SceneGeometry.contains($0.quad, centre) }) { continue }
            var pad = max(minPadding, side / 2)
            for (m, marker) in markers.enumerated() where m < sheetSides.count && sheetSides[m] > 0 {
                // A piece of a lost neighbour: a blob of at least a quarter of the marker's side, 0.6 to 2.2
                // sides from the marker's centre (a neighbour in a tight grid is 1-1.15 sides away, one at a
                // chessboard's corner 1.41, and the piece may lie off its middle). On the shared real photos
                // no seed's region changed with this rule.
                let reach = sheetSides[m], distance = marker.quad.center.distance(to: centre)
                if Double(side) >= 0.25 * reach, distance >= 0.6 * reach, distance <= 2.2 * reach { pad = max(pad, Int(reach.rounded(.up))) }
            }
            guard pad > pads[index] else { continue }
            pads[index] = pad
            add(Box(x0: max(0, box.x0 - pad), y0: max(0, box.y0 - pad), x1: min(imageWidth, box.x1 + pad), y1: min(imageHeight, box.y1 + pad)),
                to: &regions)
        }
    }

    /// `region` added to `regions`, merged with every region it overlaps until it overlaps none (a region
    /// that grows may reach others).
    static func add(_ region: Box, to regions: inout [Box]) {
        var region = region
        var merged = true
        while merged {
            merged = false
            var k = 0
            while k < regions.count {
                if regions[k].overlaps(region) {
                    region = region.union(regions[k])
                    regions.swapAt(k, regions.count - 1)
                    regions.removeLast()
                    merged = true
                } else {
                    k += 1
                }
            }
        }
        regions.append(region)
    }

    /// For each marker, its side when it touches another (a corner within `touchingCells` of its cells of
    /// another marker's corner: ArUco's marker chessboards, tight grids), else 0; into `sides`.
    static func sheetSides(markers: [MarkerDetection], cells: Int, into sides: inout [Double]) {
        sides.removeAll(keepingCapacity: true)
        for (i, marker) in markers.enumerated() {
            let side = marker.quad.perimeter / 4, reach = touchingCells * side / Double(cells), centre = marker.quad.center
            var touches = false
            for (j, other) in markers.enumerated() where j != i && !touches {
                guard other.quad.center.distance(to: centre) <= side + other.quad.perimeter / 4 + reach else { continue }
                for a in 0..<4 { for b in 0..<4 where marker.quad[a].distance(to: other.quad[b]) <= reach { touches = true } }
            }
            sides.append(touches ? side : 0)
        }
    }

    /// How close, in the marker's cells, a corner of another marker must come for the two to touch: a
    /// tight grid's gap is up to a cell, so its neighbours' corners are up to 1.4 cells apart.
    static let touchingCells = 1.5

    /// `box` grown by `margin` on every side within the image: the adaptive threshold of the crop equals
    /// the frame's inside the box when the margin is at least half the largest window.
    static func withMargin(_ box: Box, _ margin: Int, imageWidth: Int, imageHeight: Int) -> Box {
        Box(x0: max(0, box.x0 - margin), y0: max(0, box.y0 - margin), x1: min(imageWidth, box.x1 + margin), y1: min(imageHeight, box.y1 + margin))
    }

    /// The pixels of `box` from `image` as an image of their own, in the memory of `spare` (handed back
    /// by `release`, so a stream of frames allocates only when a crop is larger than any before).
    static func crop(_ image: GrayImage, _ box: Box, spare: inout [UInt8]) -> GrayImage {
        var pixels = spare
        spare = []
        pixels.removeAll(keepingCapacity: true)
        image.pixels.withUnsafeBufferPointer { source in
            for y in box.y0..<box.y1 {
                let start = y * image.width + box.x0
                pixels.append(contentsOf: UnsafeBufferPointer(rebasing: source[start..<(start + box.width)]))
            }
        }
        return GrayImage(width: box.width, height: box.height, pixels: pixels)
    }

    /// The crop's memory back to `spare` for the next crop.
    static func release(_ crop: inout GrayImage, to spare: inout [UInt8]) {
        spare = crop.pixels
        crop = .empty
    }
}
