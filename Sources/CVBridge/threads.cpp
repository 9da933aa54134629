// OpenCV's own thread pool (its parallel_for_), sized on purpose: MarkerKit sets it with its own worker
// count so that the two pools never ask for more cores than the user gave.
#include <opencv2/core.hpp>
#include "cvbridge.h"

extern "C" void cvb_set_num_threads(int32_t threads) { cv::setNumThreads(threads < 1 ? 1 : threads); }

extern "C" int32_t cvb_get_num_threads(void) { return cv::getNumThreads(); }
