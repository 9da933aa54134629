import JPEGDecode

/// A stream's JPEG decoder, for a camera's MJPEG frames: libjpeg-turbo (`Sources/JPEGDecode`) with its
/// decompressor and memory kept from frame to frame, so that once the first frames of a size are done
/// decoding allocates nothing. Gray decodes only the luma (a colour JPEG's chroma is skipped), colour
/// gives BGR; the pixels are those of OpenCV's `imdecode`, which runs the same library the same way.
/// A frame that is not a JPEG, is cut short or is damaged throws `badInput` with libjpeg's reason, and
/// nothing reaches stderr; bytes between segments that carry no picture (several webcams put some in
/// every frame) are tolerated and counted in `warnings`. One decoder serves one thread at a time.
public final class JPEGDecoder {
    private let state: OpaquePointer

    public init() throws {
        guard let state = mkjpeg_decoder_create() else { throw MarkerKitError.internalFailure("JPEG decoder: out of memory") }
        self.state = state
    }

    deinit { mkjpeg_decoder_destroy(state) }

    /// Decodes `bytes`, a JPEG of `width` x `height` (a JPEG of another size throws), into `frame` as gray
    /// or BGR, the frame's memory reused while its size stays. After a throw the frame's pixels are not a
    /// picture.
    public func decode(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int, color: Bool, into frame: inout Frame) throws {
        guard (1...65500).contains(width), (1...65500).contains(height) else {
            throw MarkerKitError.invalidArgument("a JPEG frame of \(width)x\(height): sides must be 1-65500")
        }
        frame.reshape(width: width, height: height, format: color ? .bgr8 : .gray8)
        let stride = frame.stride
        let status = frame.bytes.withUnsafeMutableBufferPointer { pixels in
            mkjpeg_decode(state, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(width), Int32(height),
                          color ? 3 : 1, pixels.baseAddress, stride)
        }
        guard status == MKJPEG_OK.rawValue else {
            let reason = String(cString: mkjpeg_decoder_message(state))
            if status == MKJPEG_ERR_MEMORY.rawValue { throw MarkerKitError.internalFailure("JPEG frame: \(reason)") }
            throw MarkerKitError.badInput("JPEG frame does not decode: \(reason)")
        }
    }

    /// Warnings the last decode tolerated: bytes between segments that carry no picture, an unknown JFIF
    /// version, a bad ICC profile marker.
    public var warnings: Int { Int(mkjpeg_decoder_warnings(state)) }
    /// Whether the last frame ended without its end-of-image marker (tolerated after a single scan).
    public var missingEnd: Bool { mkjpeg_decoder_missing_end(state) != 0 }
    /// Bytes the decoder's arenas hold.
    public var bytesHeld: Int { mkjpeg_decoder_bytes_held(state) }
    /// Blocks the decoder has taken from malloc since it was made (none more once a stream is steady).
    public var heapBlocks: Int { mkjpeg_decoder_heap_blocks(state) }
}
