#pragma once
// Include QCustomPlot through this header. qcustomplot.h uses Qt's `signals`, `slots`,
// `emit` and `foreach` keywords, which the project turns off (QT_NO_KEYWORDS) because
// LibTorch uses `slots` as an identifier; they are defined only around the include.

#ifndef signals
#define signals Q_SIGNALS
#define FOG_DEFINED_SIGNALS
#endif
#ifndef slots
#define slots Q_SLOTS
#define FOG_DEFINED_SLOTS
#endif
#ifndef emit
#define emit Q_EMIT
#define FOG_DEFINED_EMIT
#endif
#ifndef foreach
#define foreach Q_FOREACH
#define FOG_DEFINED_FOREACH
#endif

#include <qcustomplot.h>

#ifdef FOG_DEFINED_SIGNALS
#undef signals
#undef FOG_DEFINED_SIGNALS
#endif
#ifdef FOG_DEFINED_SLOTS
#undef slots
#undef FOG_DEFINED_SLOTS
#endif
#ifdef FOG_DEFINED_EMIT
#undef emit
#undef FOG_DEFINED_EMIT
#endif
#ifdef FOG_DEFINED_FOREACH
#undef foreach
#undef FOG_DEFINED_FOREACH
#endif
