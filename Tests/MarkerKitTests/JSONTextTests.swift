import Foundation
import Testing
@testable import MarkerKit

/// The hand-written JSON line of `track` and `detect --jsonl` says exactly what JSONEncoder would: the
/// same keys and every number read back bit for bit, strings escaped.
@Suite struct JSONTextTests {
    static let result = DetectionReport.FrameResult(
        source: "clip \"night\" \\ cam\n\u{1}é.avi", index: 12_345_678, width: 1920, height: -1,
        markers: [
            DetectionReport.Marker(MarkerDetection(id: 7, corners: [Point2(x: 342.4721674033957, y: -0.000012345),
                                                                      Point2(x: 1e300, y: .leastNonzeroMagnitude), Point2(x: 0, y: -0.0),
                                                                      Point2(x: 1919.5, y: 1e21)]),
                                   pose: MarkerPose(rvec: [0.1, -2.220446049250313e-16, 3.141592653589793], tvec: [0.05, 1e-9, 123456789.123])),
            DetectionReport.Marker(MarkerDetection(id: 1023, corners: [Point2(x: 1, y: 2), Point2(x: 3, y: 4), Point2(x: 5, y: 6), Point2(x: 7, y: 8)]), pose: nil),
            // Both poses, as detect and track give them.
            DetectionReport.Marker(MarkerDetection(id: 3, corners: [Point2(x: 1, y: 2), Point2(x: 3, y: 4), Point2(x: 5, y: 6), Point2(x: 7, y: 8)]),
                                   poses: MarkerPoses(chosen: MarkerPose(rvec: [3.1, 0.2, -0.01], tvec: [0.1, 0.2, 1.5]),
                                                      other: MarkerPose(rvec: [2.9, -0.3, 0.02], tvec: [0.1, 0.2, 1.49]),
                                                      chosenError: 0.31, otherError: 0.29),
                                   decided: .history, unit: "mm"),
            // With the pose's sigma.
            DetectionReport.Marker(MarkerDetection(id: 4, corners: [Point2(x: 1, y: 2), Point2(x: 3, y: 4), Point2(x: 5, y: 6), Point2(x: 7, y: 8)]),
                                   poses: MarkerPoses(chosen: MarkerPose(rvec: [3.1, 0.2, -0.01], tvec: [0.1, 0.2, 1.5]),
                                                      other: MarkerPose(rvec: [2.9, -0.3, 0.02], tvec: [0.1, 0.2, 1.49]),
                                                      chosenError: 0.31, otherError: 0.29),
                                   sigma: PoseSigma(rotation: 0.043217, translation: 1.25e-4)),
        ])

    @Test func theLineReadsBackAsWhatWasWritten() throws {
        let line = try Self.result.jsonLine()
        #expect(line.last == 0x0A && !line.dropLast().contains(0x0A), "one line")
        let back = try JSONDecoder().decode(DetectionReport.FrameResult.self, from: line)
        #expect(back.source == Self.result.source && back.index == Self.result.index)
        #expect(back.width == Self.result.width && back.height == Self.result.height)
        #expect(back.markers == Self.result.markers, "every number bit for bit")
    }

    @Test func itSaysWhatJSONEncoderSays() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let ours = try JSONSerialization.jsonObject(with: try Self.result.jsonLine()) as? NSDictionary
        let theirs = try JSONSerialization.jsonObject(with: try encoder.encode(Self.result)) as? NSDictionary
        #expect(ours != nil && ours == theirs)
        let text = String(decoding: try Self.result.jsonLine(), as: UTF8.self)
        #expect(text.hasPrefix("{\"dictionary\":\"DICT_ARUCO_ORIGINAL\",\"height\":-1,\"index\":12345678,\"markers\":[{\"corners\":[[342.4721674033957,"), "\(text)")
    }

    /// With diamonds (`detect --diamonds`), with and without a pose, and none found: the same as JSONEncoder.
    @Test func diamondsSayWhatJSONEncoderSays() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let found = DiamondDetection(ids: [45, 68, 28, 74], corners: [Point2(x: 199.50007877906546, y: -0.0), Point2(x: 1e21, y: 3),
                                                                    Point2(x: 5, y: 6), Point2(x: 7, y: 8)], markers: [])
        let poses = MarkerPoses(chosen: MarkerPose(rvec: [3.1, 0.2, -0.01], tvec: [0.1, 0.2, 1.5]),
                                other: MarkerPose(rvec: [2.9, -0.3, 0.02], tvec: [0.1, 0.2, 1.49]), chosenError: 0.31, otherError: 0.29)
        for diamonds in [[], [DetectionReport.Diamond(found, poses: nil), DetectionReport.Diamond(found, poses: poses)]] {
            var result = Self.result
            result.diamonds = diamonds
            let ours = try JSONSerialization.jsonObject(with: try result.jsonLine()) as? NSDictionary
            let theirs = try JSONSerialization.jsonObject(with: try encoder.encode(result)) as? NSDictionary
            #expect(ours != nil && ours == theirs)
            let back = try JSONDecoder().decode(DetectionReport.FrameResult.self, from: try result.jsonLine())
            #expect(back.diamonds == diamonds, "every number bit for bit")
        }
    }

    @Test func notANumberIsNull() {
        var out: [UInt8] = []
        JSONText.append([.nan, .infinity, 2.5], to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "[null,null,2.5]")
    }
}
