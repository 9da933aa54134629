#include <opencv2/core/utils/logger.hpp>
#include "bridge_error.hpp"

namespace {
// OpenCV's own console logging (warnings from back-ends it tries and drops) would break the CLI's
// one-line errors; every failure reaches the caller through bridge_last_error() instead.
struct SilenceOpenCVLogging {
    SilenceOpenCVLogging() { cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT); }
} silence_opencv_logging;
} // namespace
