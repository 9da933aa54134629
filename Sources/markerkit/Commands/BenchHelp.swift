/// `markerkit bench --help`: what every part times and against what.
extension Bench {
    static let discussion = """
    Rendered frames at 640x480, 1280x720, 1920x1080 and 3840x2160 with 0, 1, 10 and 50 markers (sides \
    from 20 px); cluttered webcam frames (640x480 and 1280x720, 10 and 50 markers on cards among text, \
    squares and codes of no dictionary, 3 frames each, as render --profile cluttered makes them); \
    plus ArUco's test video: MarkerKit's detector, OpenCV's detectMarkers with default \
    parameters and in ArUco 3 mode, and one threshold pass as the floor; with --peer-python (or after \
    `make peers`) also the newest OpenCV's ArucoDetector as pip ships it, on the same frames written \
    to disk, given the same threads. Real photos (a folder with an \
    expected.json naming each photo's dictionary and IDs: --photos or $MARKERKIT_REAL_PHOTOS; in the \
    MarkerKit repository, its development photo set), each at full resolution, with recall against the expected IDs. Rendered phone photos \
    (--profile phone of render and verify): 3024x4032 portrait, 4032x3024 landscape, and 3024x4032 with \
    print beside every marker, 4 photos each (1 with --quick). Chessboards at 1920x1080 with \
    and without a board in view: MarkerKit's finder against findChessboardCorners (default flags, \
    FAST_CHECK) and findChessboardCornersSB. MJPEG camera frames at 640x480 and 1920x1080 (10 markers, \
    made JPEGs by imencode): MarkerKit's decoder and detector as track runs them against imdecode and \
    detectMarkers, and the decoders alone. --dictionary sets the rendered frames' and phone photos' \
    markers and what every detector reads; the video (DICT_ARUCO_ORIGINAL) and the real photos (each \
    as its expected.json says) keep their own. Real ChArUco photos (a folder of sets with an \
    expected.json: --charuco-photos or $MARKERKIT_CHARUCO_PHOTOS; in the repository, its set): board \
    corners and time per photo against OpenCV 4.6's detectMarkers + interpolateCornersCharuco and, with \
    --peer-python (or after `make peers`), the newest OpenCV's CharucoDetector as pip ships it, timed in \
    the same run; without one, that detector's count from the file. Real chessboard photos (folders named chessboard-* \
    with an expected.json, under --chessboard-photos or $MARKERKIT_CHESSBOARD_PHOTOS; in the repository, \
    Tests/Fixtures), part of chessboards: what calibrate and detect --board do per photo (find + fit) \
    against findChessboardCorners + cornerSubPix, boards found beside, and the same pipeline in the \
    newest OpenCV with --peer-python (or after `make peers`). The photo rows run one thread \
    each. --threads runs the rendered marker cases once per \
    thread count, MarkerKit's workers and OpenCV's (cv::setNumThreads) given the same, with a folder row \
    each: 8 frames detected as detect --jobs N runs them, frames a second. Times come true only from an optimised build (make \
    install, or swift build -c release).

    Examples:
      markerkit bench --quick
      markerkit bench --json bench.json
      markerkit bench --only markers --dictionary 5x5_100
      markerkit bench --only markers --threads 1,2,all --sizes 640x480,1280x720
    """
}
