/*
 * The report as a picture: one panel per collective and p (and window n), the median time per
 * call against message size on log-log axes, one colour per algorithm (the same in every panel),
 * the model's predictions dashed in the same colour, and the chosen (most-called) algorithm's point
 * of each size bin ringed, with the letter of why it ran above the plot (tools/report/why.h). Each
 * measured point's title says its calls, median and why; the notes beside the panel say what the
 * letters mean and, where the model is far off, the worst prediction each way in words.
 */
#ifndef CS_REPORT_SVG_H
#define CS_REPORT_SVG_H

#include "table.h"

/* Write the SVG of a finished table. 0, or -1 (reported) if the file cannot be written. */
int cs_svg_write(const cs_table *t, const char *path);

#endif
