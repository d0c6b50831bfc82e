#include "core/util/portable_math.h"

#include <sleef.h>

namespace fog::pmath {

double exp(double x) { return Sleef_expd1_u10purec(x); }
double log(double x) { return Sleef_logd1_u10purec(x); }
double log1p(double x) { return Sleef_log1pd1_u10purec(x); }
double pow(double x, double y) { return Sleef_powd1_u10purec(x, y); }
double lgamma(double x) { return Sleef_lgammad1_u10purec(x); }

} // namespace fog::pmath
