// Cairo with its PDF and SVG back-ends (Debian: libcairo2-dev).
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
#include <cairo/cairo-svg.h>
