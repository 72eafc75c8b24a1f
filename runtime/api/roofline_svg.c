/* rk_roofline_svg (rkc --roofline=FILE.svg, RK_ROOFLINE=FILE.svg for the autotuner): the device's roofline (log-log: FLOP/s against FLOPs per byte; the bandwidth
 * slope up to the ridge point, then the compute roof of the kernel's FLOP mix) with labelled points,
 * as one self-contained SVG file (no script, font or image from elsewhere). Axes span whole decades
 * around the roof and the points; points are numbered, their labels listed top left. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/api/api_internal.h"

enum { W = 720, H = 480, L = 80, R = 24, TOP = 40, B = 56 };

static void esc(FILE *f, const char *s)
{
    for (; *s; s++)
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
}

static int write_svg(const char *path, const rk_peaks *p, double roof, const rk_roofline_point *pts, int n)
{
    double bw = p->bytes_per_s;
    if (roof <= 0)
        roof = p->bf16_matrix > 0 ? p->bf16_matrix : p->f32;
    double ridge = roof / bw;
    double x0 = floor(log10(ridge)) - 3, x1 = ceil(log10(ridge)) + 2;
    double y1 = ceil(log10(roof)) + (n > 2 ? 1.3 : 0.3), y0 = y1 - 7; /* room for the legend */
    for (int i = 0; i < n; i++) {
        if (pts[i].intensity > 0) {
            x0 = fmin(x0, floor(log10(pts[i].intensity)));
            x1 = fmax(x1, ceil(log10(pts[i].intensity)));
        }
        if (pts[i].flops_per_s > 0)
            y0 = fmin(y0, floor(log10(pts[i].flops_per_s)));
    }
#define X(v) (L + (log10(v) - x0) / (x1 - x0) * (W - L - R))
#define Y(v) (TOP + (y1 - log10(v)) / (y1 - y0) * (H - TOP - B))
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return errno;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, H, W, H);
    fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"15\">Roofline of ", L);
    esc(f, p->name);
    fprintf(f, ": %.4g TB/s, %.4g TFLOP/s (ridge %.3g FLOP/B)</text>\n", bw / 1e12, roof / 1e12, ridge);
    for (double e = x0; e <= x1 + 1e-9; e++) { /* decades */
        double x = X(pow(10, e));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1e%.0f</text>\n",
                x, TOP, x, H - B, x, H - B + 16, e);
    }
    for (double e = ceil(y0); e <= y1 + 1e-9; e++) {
        double y = Y(pow(10, e));
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%.0f</text>\n",
                L, y, W - R, y, L - 6, y + 4, e);
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"black\"/>\n", L, TOP,
            W - L - R, H - TOP - B);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte)</text>\n",
            (L + W - R) / 2, H - 14);
    fprintf(f, "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\">FLOP/s</text>\n",
            (TOP + H - B) / 2);
    /* the roof: bandwidth from the left edge (clipped at the bottom) to the ridge, then flat */
    double xa = pow(10, x0), ya = xa * bw;
    if (ya < pow(10, y0))
        xa = pow(10, y0) / bw, ya = pow(10, y0);
    fprintf(f, "<polyline fill=\"none\" stroke=\"#c00\" stroke-width=\"2.5\" points=\"%.1f,%.1f %.1f,%.1f "
               "%.1f,%.1f\"/>\n",
            X(xa), Y(ya), X(ridge), Y(roof), X(pow(10, x1)), Y(roof));
    for (int i = 0; i < n; i++) {
        if (pts[i].intensity <= 0 || pts[i].flops_per_s <= 0)
            continue;
        double x = X(pts[i].intensity), y = Y(pts[i].flops_per_s);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"><title>", x, y,
                pts[i].bound ? "#08c" : "#f80");
        esc(f, pts[i].label);
        fprintf(f, ": %.3g FLOP/B, %.4g TFLOP/s</title></circle>\n<text x=\"%.1f\" y=\"%.1f\">%d</text>\n",
                pts[i].intensity, pts[i].flops_per_s / 1e12, x + 7, y - 5 - 12.0 * (i % 4), i + 1);
        /* the legend, top left, above the bandwidth roof */
        fprintf(f, "<text x=\"%d\" y=\"%d\">%d: ", L + 8, TOP + 16 + 14 * i, i + 1);
        esc(f, pts[i].label);
        fprintf(f, " (%.3g FLOP/B, %.4g TFLOP/s)</text>\n", pts[i].intensity, pts[i].flops_per_s / 1e12);
    }
    fputs("</svg>\n", f);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno ? errno : EIO;
        remove(tmp);
        return e;
    }
    return 0;
}

rk_status rk_roofline_svg(rk_ctx *ctx, const char *path, const rk_peaks *peaks, double roof,
                          const rk_roofline_point *points, int npoints)
{
    if (!ctx || !path || !peaks || (npoints && !points) || npoints < 0)
        return RK_EINVAL;
    RT_ENTER(ctx);
    int e = write_svg(path, peaks, roof, points, npoints);
    return e ? rt_fail(ctx, RK_EIO, "cannot write '%s': %s", path, strerror(e)) : RK_OK;
}
