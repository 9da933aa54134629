// swift-tools-version:6.0
import PackageDescription

// OpenCV is linked library by library: pkg-config's `opencv4` would pull all 57 of them. imgcodecs and
// videoio are not linked but loaded on first use (Sources/CVBridge/opencv_libraries.cpp, as highgui):
// linked, they loaded GDAL, FFmpeg and GStreamer into every command (the start-up times with and without
// are in docs/MEASUREMENTS.md, "Start-up and use as a dependency").
let openCVLibraries = ["opencv_core", "opencv_imgproc", "opencv_calib3d", "opencv_aruco"]

let package = Package(
    name: "MarkerKit",
    products: [
        .library(name: "MarkerKit", targets: ["MarkerKit"]),
        .executable(name: "markerkit", targets: ["markerkit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.0"),
        // Hummingbird's own dependencies, named because serve uses their types directly.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // The C++ of the project, in C targets by role, each behind a plain C header:
        // - BridgeStatus: how they all report failure (codes and the thread's last message).
        // - CVBridge: OpenCV's own functions, wrapped; the only target that links OpenCV into the product.
        // - MarkerKitKernels: MarkerKit's own allocation-free kernels (no OpenCV).
        // - JPEGDecode (below, C): camera MJPEG frames through libjpeg-turbo, without allocating per frame.
        // - CVBridgeTestReferences: the OpenCV calls only the tests make (references for the kernels).
        // OpenCV's headers through a committed symlink (opencv4 -> /usr/include/opencv4, Debian's
        // libopencv-dev): a search path inside the package, where an -I flag would be an unsafe flag that
        // keeps other packages from depending on MarkerKit by version.
        .target(name: "BridgeStatus"),
        .target(
            name: "CVBridge",
            dependencies: ["BridgeStatus"],
            exclude: ["opencv4"],
            cxxSettings: [.headerSearchPath("opencv4")],
            linkerSettings: openCVLibraries.map { .linkedLibrary($0) }
        ),
        .target(name: "MarkerKitKernels", dependencies: ["BridgeStatus"]),
        // A camera's MJPEG frames through libjpeg-turbo's libjpeg API (Debian's libjpeg62-turbo-dev), in C:
        // the decompressor and an arena memory manager kept per camera, so decoding allocates nothing per frame.
        .target(name: "JPEGDecode", linkerSettings: [.linkedLibrary("jpeg")]),
        .target(
            name: "CVBridgeTestReferences",
            dependencies: ["BridgeStatus", "CVBridge", "MarkerKitKernels"],
            exclude: ["opencv4"],
            cxxSettings: [.headerSearchPath("opencv4")],
            linkerSettings: ["opencv_core", "opencv_imgproc", "opencv_imgcodecs", "opencv_aruco", "jpeg"].map { .linkedLibrary($0) }
        ),
        // The AprilTag 3 C library (Debian's libapriltag-dev) as a peer for verify and bench: the detector
        // AprilTag users compare against. Linked by the command-line tool only, never by the MarkerKit product.
        .target(name: "AprilTagBridge", linkerSettings: [.linkedLibrary("apriltag")]),
        .target(name: "AprilTagPeer", dependencies: ["MarkerKit", "AprilTagBridge"]),
        .systemLibrary(name: "CCairo", pkgConfig: "cairo",
                       providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2",
                       providers: [.apt(["libv4l-dev"])]),
        // Page sizes and sheet styles: data files, bundled as resources.
        .target(
            name: "MarkerKitTemplates",
            path: "Templates",
            resources: [.copy("pages.json"), .copy("sheets.json")]
        ),
        .target(
            name: "MarkerKit",
            dependencies: ["BridgeStatus", "CVBridge", "MarkerKitKernels", "JPEGDecode", "CCairo", "CV4L2", "MarkerKitTemplates",
                           .product(name: "Yams", package: "Yams")]
        ),
        // `markerkit serve`: the library's capture, calibration, store and sheet types behind an HTTP and
        // WebSocket server (Hummingbird), with its page (plain HTML, CSS and JavaScript) as resources. A
        // target of its own, so that a package depending on MarkerKit does not build a web server.
        .target(
            name: "MarkerKitServer",
            dependencies: ["MarkerKit",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdCore", package: "hummingbird"),
                           .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            resources: [.copy("Web")]
        ),
        .executableTarget(
            name: "markerkit",
            dependencies: [
                "MarkerKit",
                "MarkerKitServer",
                "AprilTagPeer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The file parsers and the server's inputs under libFuzzer (`make fuzz`); built plainly it replays inputs.
        .executableTarget(name: "MarkerKitFuzz", dependencies: ["MarkerKit", "MarkerKitServer"]),
        .testTarget(name: "MarkerKitTests", dependencies: ["MarkerKit", "MarkerKitFuzz", "BridgeStatus", "CVBridge", "MarkerKitKernels",
                                                          "CVBridgeTestReferences", .product(name: "Yams", package: "Yams")]),
        .testTarget(name: "MarkerKitCLITests", dependencies: ["markerkit", "MarkerKit", "AprilTagPeer"]),
    ],
    cxxLanguageStandard: .cxx17
)
