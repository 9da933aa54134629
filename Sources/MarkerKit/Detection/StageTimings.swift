/// Time spent in each detector stage, summed over the frames measured, in stage order. Stages whose work
/// runs on the worker pool (the threshold windows' contours and candidates, the candidates' reads) add up
/// the time of every thread, so on several cores the total is more than the frames took.
public struct StageTimings: Sendable {
    public private(set) var stages: [(name: String, seconds: Double)] = []
    public private(set) var frames = 0

    public init() {}

    mutating func add(_ name: String, _ duration: Duration) {
        add(name, seconds: Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18)
    }

    mutating func add(_ name: String, seconds: Double) {
        if let i = stages.firstIndex(where: { $0.name == name }) {
            stages[i].seconds += seconds
        } else {
            stages.append((name, seconds))
        }
    }

    /// Adds another's stage times (a worker thread's, or a worker's frames), stage by stage, and its frames.
    mutating func add(_ other: StageTimings) {
        for stage in other.stages {
            if let i = stages.firstIndex(where: { $0.name == stage.name }) {
                stages[i].seconds += stage.seconds
            } else {
                stages.append(stage)
            }
        }
        frames += other.frames
    }

    mutating func countFrame() { frames += 1 }

    /// One line per stage: total and per-frame milliseconds.
    public var table: String {
        let total = stages.map(\.seconds).reduce(0, +)
        let perFrame = { (s: Double) in s * 1000 / Double(max(frames, 1)) }
        let rows = stages.map { stage in
            "  \(stage.name.padding(toLength: 18, withPad: " ", startingAt: 0)) \(String(format: "%9.2f ms/frame", perFrame(stage.seconds)))"
        }
        return (["detector stage timings over \(counted(frames, "frame")):"] + rows
            + ["  \("total".padding(toLength: 18, withPad: " ", startingAt: 0)) \(String(format: "%9.2f ms/frame", perFrame(total)))"])
            .joined(separator: "\n")
    }
}

import Foundation
