import Foundation

/// A rectification map as a NumPy `.npy` file: float32, shape (height, width, 2), the source x and y of
/// each rectified pixel, as cv2.remap takes them (`m = np.load(f); cv2.remap(img, m[..., 0], m[..., 1],
/// cv2.INTER_LINEAR)`). NumPy's format 1.0: the magic, a little-endian header dictionary padded to 64 bytes.
public enum RectificationMaps {
    public static func npy(x: [Float], y: [Float], width: Int, height: Int) throws -> Data {
        guard x.count == width * height, y.count == x.count else { throw MarkerKitError.invalidArgument("a map is width x height values") }
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (\(height), \(width), 2), }"
        let unpadded = 10 + header.utf8.count + 1
        header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
        var data = Data([0x93] + Array("NUMPY".utf8) + [1, 0])
        let length = UInt16(header.utf8.count)
        data.append(contentsOf: [UInt8(length & 0xff), UInt8(length >> 8)])
        data.append(contentsOf: Array(header.utf8))
        var values = [Float](repeating: 0, count: 2 * x.count)
        for i in x.indices {
            values[2 * i] = x[i]
            values[2 * i + 1] = y[i]
        }
        values.withUnsafeBufferPointer { buffer in
            // Float32 little-endian, as every platform Swift runs on here stores it.
            data.append(UnsafeBufferPointer(start: UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UInt8.self), count: 4 * values.count))
        }
        return data
    }
}
