#include "bridge_error.hpp"

namespace {
thread_local std::string last_error;
}

void cvb::set_error(const std::string &message) { last_error = message; }
void cvb::clear_error() { last_error.clear(); }

extern "C" const char *cvb_last_error(void) { return last_error.c_str(); }
