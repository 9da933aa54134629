#include <opencv2/core/utils/logger.hpp>
#include "bridge_error.hpp"

namespace {
thread_local std::string last_error;

// OpenCV's own console logging (warnings from back-ends it tries and drops) would break the CLI's
// one-line errors; every failure reaches the caller through cvb_last_error() instead.
struct SilenceOpenCVLogging {
    SilenceOpenCVLogging() { cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT); }
} silence_opencv_logging;
} // namespace

void cvb::set_error(const std::string &message) { last_error = message; }
void cvb::clear_error() { last_error.clear(); }

extern "C" const char *cvb_last_error(void) { return last_error.c_str(); }
