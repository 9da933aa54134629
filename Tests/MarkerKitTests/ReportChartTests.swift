import Testing
@testable import MarkerKit

/// The report's charts as a reader sees them (before: an axis labelled "0.02, 0.02, 0.01, 0.01,
/// 0.00"; a distortion field of 4.6 px drawn at its size, invisible).
@Suite struct ReportChartTests {
    @Test func axisLabelsAreRoundAndDistinct() {
        let ticks = CalibrationReport.axisTicks(upTo: 0.023)
        #expect(ticks.map(\.label) == ["0.000", "0.005", "0.010", "0.015", "0.020"])
        #expect(CalibrationReport.axisTicks(upTo: 0.74).map(\.label) == ["0.0", "0.2", "0.4", "0.6"])
        #expect(CalibrationReport.axisTicks(upTo: 3.2).map(\.label) == ["0", "1", "2", "3"])
        for top in [0.0013, 0.02, 0.5, 1, 7.7, 140] {
            let labels = CalibrationReport.axisTicks(upTo: top).map(\.label)
            #expect(Set(labels).count == labels.count && (3...7).contains(labels.count), "\(top): \(labels)")
        }
        #expect(CalibrationReport.axisTicks(upTo: 0).isEmpty && CalibrationReport.axisTicks(upTo: .infinity).isEmpty)
    }

    @Test func smallDistortionArrowsAreEnlarged() {
        // 16 arrows across a 640 px image: 40 px apart.
        #expect(CalibrationReport.arrowScale(largest: 4.6, spacing: 40) == 5)
        #expect(CalibrationReport.arrowScale(largest: 0.3, spacing: 40) == 100)
        #expect(CalibrationReport.arrowScale(largest: 100, spacing: 40) == 0.2)
        #expect(CalibrationReport.arrowScale(largest: 0, spacing: 40) == 1)
    }
}
