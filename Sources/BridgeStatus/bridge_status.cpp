// The calling thread's last failure message, for every C target of MarkerKit.
#include <string>
#include "bridge_status.h"

namespace {
thread_local std::string last_error;
}

extern "C" const char *bridge_last_error(void) { return last_error.c_str(); }
extern "C" void bridge_set_error(const char *message) { last_error = message != nullptr ? message : ""; }
extern "C" void bridge_clear_error(void) { last_error.clear(); }
