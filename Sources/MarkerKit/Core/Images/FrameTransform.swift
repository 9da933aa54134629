/// Turning and mirroring frames for display (`--rotate`, `--mirror`), and mapping points found in the
/// turned frame back to the sensor's own pixel coordinates, where calibrations hold.
public struct FrameTransform: Sendable, Equatable {
    /// Clockwise quarter turns: 0, 1, 2, 3.
    public let quarterTurns: Int
    public let mirror: Bool

    public init(rotate degrees: Int, mirror: Bool) throws {
        guard [0, 90, 180, 270].contains(degrees) else {
            throw MarkerKitError.invalidArgument("a rotation of \(degrees) degrees must be 0, 90, 180 or 270")
        }
        quarterTurns = degrees / 90
        self.mirror = mirror
    }

    public var isIdentity: Bool { quarterTurns == 0 && !mirror }

    /// Where sensor pixel (x, y) lands in the transformed frame (mirror first, then turn).
    public func forward(_ p: Point2, width w: Int, height h: Int) -> Point2 {
        var x = mirror ? Double(w - 1) - p.x : p.x, y = p.y
        var (cw, ch) = (Double(w), Double(h))
        for _ in 0..<quarterTurns {
            (x, y) = (ch - 1 - y, x)
            (cw, ch) = (ch, cw)
        }
        return Point2(x: x, y: y)
    }

    /// The sensor pixel that shows at (x, y) of the transformed frame.
    public func toSensor(_ p: Point2, width w: Int, height h: Int) -> Point2 {
        var x = p.x, y = p.y
        // Undo the turns: the transformed frame is h x w after an odd number of turns.
        var (cw, ch) = quarterTurns % 2 == 0 ? (Double(w), Double(h)) : (Double(h), Double(w))
        for _ in 0..<quarterTurns {
            (x, y) = (y, cw - 1 - x)
            (cw, ch) = (ch, cw)
        }
        if mirror { x = Double(w - 1) - x }
        return Point2(x: x, y: y)
    }

    public func apply(_ frame: Frame) -> Frame {
        guard !isIdentity else { return frame }
        var out = Frame.empty
        apply(frame, into: &out)
        return out
    }

    /// The transformed frame into `out`, whose memory is reused while the size stays.
    public func apply(_ frame: Frame, into out: inout Frame) {
        let c = frame.format.channels
        let (w, h) = (frame.width, frame.height)
        let (ow, oh) = quarterTurns % 2 == 0 ? (w, h) : (h, w)
        out.reshape(width: ow, height: oh, format: frame.format)
        out.bytes.withUnsafeMutableBufferPointer { target in
            frame.bytes.withUnsafeBufferPointer { source in
                for y in 0..<h {
                    for x in 0..<w {
                        let p = forward(Point2(x: Double(x), y: Double(y)), width: w, height: h)
                        let to = (Int(p.y) * ow + Int(p.x)) * c, from = y * frame.stride + x * c
                        for k in 0..<c { target[to + k] = source[from + k] }
                    }
                }
            }
        }
    }
}
