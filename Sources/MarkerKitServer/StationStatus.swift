import Foundation
import MarkerKit

/// What the page shows of the camera and the capture assistant, sent to browsers as JSON with every
/// picture: the phase, frame counts and rate, the views kept, the assistant's verdict and coverage, and the
/// projection uncertainty of a calibration from the kept views (where to hold the board next).
public struct StationStatus: Codable, Sendable {
    public struct Coverage: Codable, Sendable, Equatable {
        public let name: String
        public let value: Double
    }

    public struct Uncertainty: Codable, Sendable {
        public let worst: ProjectionUncertainty.Point
        public let median: Double
        public let place: String
        public let views: Int
        /// Sigma (px) at a 16x9 grid of the image without its outer 10%, row by row.
        public let columns: Int, rows: Int
        public let points: [ProjectionUncertainty.Point]

        init(_ u: CaptureAssistant.UncertaintyState) {
            worst = u.worst
            median = u.median
            place = u.place
            views = u.views
            columns = 16
            rows = u.points.count / 16
            points = u.points
        }
    }

    /// A rig's cameras (`serve` with several `--device`): each camera's verdict and coverage, the gap
    /// between the frames of the last matched set, and how sure a rig from the sets so far is of each
    /// camera's place relative to the first.
    public struct Rig: Codable, Sendable {
        public struct Camera: Codable, Sendable {
            public let name: String
            public let device: String
            public var width = 0, height = 0
            public var verdict: String?
            public var corners: Int?
            public var coverage: [Coverage] = []
        }

        public var cameras: [Camera]
        /// The largest gap a set may have, the last matched frames' gap (s), and the frames passed over
        /// so far as further apart.
        public let maxGap: Double
        public var gap: Double?
        public var unmatched = 0
        public var pairs: [RigPairState] = []

        init(cameras: [Camera], maxGap: Double) {
            self.cameras = cameras
            self.maxGap = maxGap
        }
    }

    public var device: String
    /// starting, capturing, watching (the views are in; the picture goes on), ended (the video or camera
    /// stopped), stopped (the server is stopping), disconnected (the camera went away; the page
    /// and the kept views stay), failed (with `message`).
    public var phase = "starting"
    public var message: String?
    public var directory: String
    public var width = 0, height = 0
    /// Frames read from the device, dropped (a camera's frames nobody had time for), bad (damaged MJPEG
    /// frames skipped) and read per second.
    public var frames = 0, dropped = 0, bad = 0
    public var fps = 0.0
    /// The board's summary (nil without a board).
    public var board: String?
    public var views = 0
    /// Each kept view's sharpness (with a board; the assistant keeps views from 20 up).
    public var sharpness: [Double] = []
    /// How many views the capture keeps at most.
    public var count: Int
    public var untilSigma: Double?
    /// With a board: the assistant's verdict on the last frame (noBoard, moving, holding, blurred,
    /// notNew, kept) and the board corners found in it; without one: the markers found.
    public var verdict: String?
    public var corners: Int?
    public var markers: Int?
    public var coverage: [Coverage] = []
    public var uncertainty: Uncertainty?
    public var rig: Rig?

    init(device: String, directory: String, count: Int, board: String?, untilSigma: Double?) {
        self.device = device
        self.directory = directory
        self.count = count
        self.board = board
        self.untilSigma = untilSigma
    }

    static func coverage(_ values: [Double]) -> [Coverage] {
        zip(["x", "y", "size", "skew", "image corners"], values).map { Coverage(name: $0, value: $1) }
    }
}
