/* SPDX-License-Identifier: Apache-2.0 */
/*
 * classify.c — classify an image with a TFLite model on the edgeq engine,
 * optionally lighting a GPIO line per class and waiting for a button.
 *
 *   classify model.tflite image.(pgm|ppm|bmp) [--labels FILE] [--top K] ...
 *
 * The image is decoded, resized (bilinear) to the model's input, mapped
 * from pixel values to the input's real values and quantized with the
 * input's scale and zero point; then the model runs and the top K classes
 * of output 0 are printed with their scores. `classify --help` says more.
 *
 * A Linux program (libc); the engine itself is the same libedge that runs
 * bare-metal.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "edge/edge.h"
#include "gpio.h"
#include "image.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define MAX_FILE ((size_t)512 << 20)
#define BUTTON_POLL_MS 500

static void usage_text(FILE *fp) {
    fputs("usage: classify MODEL.tflite IMAGE.(pgm|ppm|bmp) [options]\n"
          "\n"
          "Classify an image with an int8, uint8 or float-input TFLite model on the edgeq\n"
          "engine and print the top classes of output 0 with their scores.\n"
          "\n"
          "The image is resized (bilinear, half-pixel centres) to the input's height and\n"
          "width, converted to its channels (gray <-> RGB), and pixel values 0..255 are\n"
          "mapped linearly onto the real range given by --range, then quantized with the\n"
          "input's scale and zero point: q = round(x / scale) + zero_point.\n"
          "\n"
          "options:\n"
          "  --labels FILE      class names, one per line (default: 'class N')\n"
          "  --top K            how many classes to print (default 3)\n"
          "  --range LO,HI      real value of pixel 0 and of pixel 255. Default: the\n"
          "                     input's whole quantized range, [scale*(qmin-zp),\n"
          "                     scale*(qmax-zp)], so pixel p becomes q = qmin + p; for a\n"
          "                     float input, 0,1\n"
          "  --raw              the image's stored bytes ARE the input tensor's values\n"
          "                     (int8 as two's complement, or uint8): no resize, no\n"
          "                     mapping. The image must be 8-bit gray (PGM, or a BMP with\n"
          "                     a palette) of exactly the input's size. TFLite Micro's\n"
          "                     person_detect samples (person.bmp, no_person.bmp) are such\n"
          "                     files\n"
          "  --signed-pixels    the image's stored 8-bit gray values are signed (int8,\n"
          "                     two's complement), as in person_detect's samples: pixel =\n"
          "                     value + 128, then the usual resize and mapping\n"
          "  --dump-input FILE  write the input tensor's bytes as fed to the model\n"
          "  --dump-output FILE write output 0's bytes\n"
          "GPIO (libgpiod on a Raspberry Pi; '--gpio-chip fake[:presses=N]' simulates):\n"
          "  --gpio-chip CHIP   the chip (default gpiochip0)\n"
          "  --led L0[,L1...]   output lines, one per class in order: the winning class's\n"
          "                     line is driven high, the others low\n"
          "  --threshold T      light the winner's line only when its score >= T (default 0)\n"
          "  --button LINE      input line (pull-up, pressed = falling edge): classify\n"
          "                     once, then again on every press, re-reading IMAGE each\n"
          "                     time, until Ctrl-C\n"
          "\n"
          "exit codes: 0 success, 1 failure (file, model, image or GPIO), 2 usage error\n",
          fp);
}

typedef struct options {
    const char *model, *image, *labels, *dump_in, *dump_out, *chip;
    int top, raw, signed_pixels, has_range, has_button;
    float range_lo, range_hi, threshold;
    unsigned leds[GPIO_MAX_OUTPUTS], n_leds, button;
} options;

static int usage(const char *fmt, const char *arg) {
    fputs("classify: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'classify --help'.\n", stderr);
    return EXIT_USAGE;
}

static int parse_uint(const char *s, unsigned max, unsigned *out) {
    if (!s || !*s) return -1;
    unsigned long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (unsigned long)(*p - '0');
        if (v > max) return -1;
    }
    *out = (unsigned)v;
    return 0;
}

static int parse_float(const char *s, float *out) {
    char *end = NULL;
    if (!s || !*s) return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v)) return -1;
    *out = (float)v;
    return 0;
}

static int parse_args(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->top = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                             \
    do {                                                         \
        if (!v) return usage("option %s needs a value", a);      \
        i++;                                                     \
    } while (0)
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_text(stdout);
            exit(0);
        } else if (strcmp(a, "--labels") == 0) {
            NEED_VALUE();
            o->labels = v;
        } else if (strcmp(a, "--top") == 0) {
            NEED_VALUE();
            unsigned k;
            if (parse_uint(v, 100000, &k) || k == 0) return usage("--top needs a number >= 1, not '%s'", v);
            o->top = (int)k;
        } else if (strcmp(a, "--range") == 0) {
            NEED_VALUE();
            char buf[64];
            const char *comma = strchr(v, ',');
            size_t n = comma ? (size_t)(comma - v) : 0;
            if (!comma || n >= sizeof buf) return usage("--range needs LO,HI, not '%s'", v);
            memcpy(buf, v, n);
            buf[n] = 0;
            if (parse_float(buf, &o->range_lo) || parse_float(comma + 1, &o->range_hi) ||
                o->range_lo == o->range_hi)
                return usage("--range needs two different numbers LO,HI, not '%s'", v);
            o->has_range = 1;
        } else if (strcmp(a, "--raw") == 0) {
            o->raw = 1;
        } else if (strcmp(a, "--signed-pixels") == 0) {
            o->signed_pixels = 1;
        } else if (strcmp(a, "--dump-input") == 0) {
            NEED_VALUE();
            o->dump_in = v;
        } else if (strcmp(a, "--dump-output") == 0) {
            NEED_VALUE();
            o->dump_out = v;
        } else if (strcmp(a, "--gpio-chip") == 0) {
            NEED_VALUE();
            o->chip = v;
        } else if (strcmp(a, "--led") == 0) {
            NEED_VALUE();
            char buf[256];
            if (strlen(v) >= sizeof buf) return usage("--led list too long: '%s'", v);
            strcpy(buf, v);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                if (o->n_leds == GPIO_MAX_OUTPUTS) return usage("--led: at most 16 lines ('%s')", v);
                if (parse_uint(tok, 100000, &o->leds[o->n_leds]))
                    return usage("--led needs line numbers separated by commas, not '%s'", v);
                o->n_leds++;
            }
            if (o->n_leds == 0) return usage("--led needs at least one line number ('%s')", v);
        } else if (strcmp(a, "--threshold") == 0) {
            NEED_VALUE();
            if (parse_float(v, &o->threshold)) return usage("--threshold needs a number, not '%s'", v);
        } else if (strcmp(a, "--button") == 0) {
            NEED_VALUE();
            if (parse_uint(v, 100000, &o->button)) return usage("--button needs a line number, not '%s'", v);
            o->has_button = 1;
        } else if (a[0] == '-' && a[1]) {
            return usage("unknown option '%s'", a);
        } else if (!o->model) {
            o->model = a;
        } else if (!o->image) {
            o->image = a;
        } else {
            return usage("one model and one image, please (extra argument '%s')", a);
        }
#undef NEED_VALUE
    }
    if (!o->model || !o->image) return usage("%s", "need a model and an image: classify MODEL IMAGE [options]");
    if (o->chip && !o->n_leds && !o->has_button)
        return usage("--gpio-chip %s: say which lines (--led, --button)", o->chip);
    if ((o->n_leds || o->has_button) && !o->chip) o->chip = "gpiochip0";
    if (o->raw && (o->has_range || o->signed_pixels))
        return usage("%s", "--raw takes the bytes as they are: no --range or --signed-pixels");
    return 0;
}

/* Whole file into a 16-byte aligned block (the engine's alignment). */
static uint8_t *read_file(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "classify: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            size_t next = cap ? cap * 2 : 1 << 16;
            if (next > MAX_FILE) {
                fprintf(stderr, "classify: %s: larger than %zu bytes\n", path, MAX_FILE);
                break;
            }
            uint8_t *grown = aligned_alloc(EDGE_ARENA_ALIGN, next);
            if (!grown) {
                fprintf(stderr, "classify: %s: out of memory\n", path);
                break;
            }
            if (n) memcpy(grown, buf, n);
            free(buf);
            buf = grown, cap = next;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0) {
            if (ferror(fp)) {
                fprintf(stderr, "classify: %s: read error\n", path);
                break;
            }
            fclose(fp);
            *len = n;
            return buf;
        }
    }
    fclose(fp);
    free(buf);
    return NULL;
}

static int write_file(const char *path, const void *data, size_t len) {
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(data, 1, len, fp) != len || fclose(fp) != 0) {
        fprintf(stderr, "classify: %s: %s\n", path, strerror(errno));
        if (fp) fclose(fp);
        return -1;
    }
    return 0;
}

/* ---------------- model ---------------- */

typedef struct runner {
    uint8_t *file, *arena, *packed;
    size_t file_len;
    edge_model m;
    int32_t h, w, c; /* input geometry (NHWC, batch 1) */
} runner;

static int load_model(runner *r, const char *path) {
    r->file = read_file(path, &r->file_len);
    if (!r->file) return -1;
    /* Start with 256 KiB; on EDGE_ERR_ARENA the engine says how much it needs. */
    size_t size = 256 * 1024;
    for (int attempt = 0; attempt < 8; attempt++) {
        free(r->arena);
        size = (size + EDGE_ARENA_ALIGN - 1) & ~(size_t)(EDGE_ARENA_ALIGN - 1);
        r->arena = aligned_alloc(EDGE_ARENA_ALIGN, size);
        if (!r->arena) {
            fprintf(stderr, "classify: out of memory for a %zu-byte arena\n", size);
            return -1;
        }
        edge_status s = edge_model_init(&r->m, r->file, r->file_len, r->arena, size);
        if (s == EDGE_OK) {
            /* Weights laid out once where this CPU's kernels want them (x86
             * AVX2; on a Pi nothing packs and this is skipped). */
            const size_t pack = edge_model_pack_needed(&r->m);
            if (pack && (r->packed = malloc(pack)) != NULL && edge_model_pack(&r->m, r->packed, pack) != EDGE_OK)
                fprintf(stderr, "classify: %s: pack: %s (running without)\n", path, edge_model_error(&r->m));
            return 0;
        }
        if (s != EDGE_ERR_ARENA) {
            fprintf(stderr, "classify: %s: %s: %s\n", path, edge_status_str(s), edge_model_error(&r->m));
            return -1;
        }
        size_t need = r->m.arena_needed;
        size = need > size ? need : size * 2;
    }
    fprintf(stderr, "classify: %s: could not size the arena\n", path);
    return -1;
}

static int check_input(runner *r, const char *path) {
    if (edge_num_inputs(&r->m) != 1) {
        fprintf(stderr, "classify: %s has %u inputs; an image model has one\n", path,
                edge_num_inputs(&r->m));
        return -1;
    }
    edge_tensor in = edge_input(&r->m, 0);
    if (in.type != EDGE_INT8 && in.type != EDGE_UINT8 && in.type != EDGE_FLOAT32) {
        fprintf(stderr, "classify: %s: input type %s (int8, uint8 or float32 expected)\n", path,
                edge_type_name(in.type));
        return -1;
    }
    const int32_t *d = in.dims;
    if (in.rank == 4 && d[0] == 1)
        r->h = d[1], r->w = d[2], r->c = d[3];
    else if (in.rank == 3)
        r->h = d[0], r->w = d[1], r->c = d[2];
    else {
        fprintf(stderr, "classify: %s: input must be [1,H,W,C] or [H,W,C]\n", path);
        return -1;
    }
    if ((r->c != 1 && r->c != 3) || r->h < 1 || r->w < 1) {
        fprintf(stderr, "classify: %s: input has %d channels (1 or 3 expected)\n", path, (int)r->c);
        return -1;
    }
    if (in.type != EDGE_FLOAT32 && !(in.scale > 0)) {
        fprintf(stderr, "classify: %s: quantized input without a scale\n", path);
        return -1;
    }
    return 0;
}

/* ---------------- one classification ---------------- */

typedef struct labels {
    char *text;
    char **names;
    size_t count;
} labels;

static int load_labels(labels *l, const char *path) {
    size_t len = 0;
    uint8_t *data = read_file(path, &len);
    if (!data) return -1;
    l->text = malloc(len + 1);
    if (!l->text) {
        free(data);
        return -1;
    }
    memcpy(l->text, data, len);
    l->text[len] = 0;
    free(data);
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += l->text[i] == '\n';
    l->names = calloc(lines, sizeof *l->names);
    if (!l->names) return -1;
    for (char *p = l->text; p && *p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        size_t n = strlen(p);
        if (n && p[n - 1] == '\r') p[n - 1] = 0;
        l->names[l->count++] = p;
        p = nl ? nl + 1 : NULL;
    }
    return 0;
}

static float quant_min(edge_type t) { return t == EDGE_INT8 ? -128.0f : 0.0f; }
static float quant_max(edge_type t) { return t == EDGE_INT8 ? 127.0f : 255.0f; }

/* Fill the input tensor from the image. */
static int fill_input(runner *r, const options *o, const image *img) {
    edge_tensor in = edge_input(&r->m, 0);
    const size_t count = (size_t)r->h * (size_t)r->w * (size_t)r->c;
    if (o->raw) {
        if (!img->raw || r->c != 1 || img->width != r->w || img->height != r->h || in.type == EDGE_FLOAT32) {
            fprintf(stderr,
                    "classify: --raw needs an 8-bit gray image (PGM, or BMP with a palette) of exactly "
                    "the input's %dx%d and an int8 or uint8 input; %s is %s %dx%d%s\n",
                    (int)r->w, (int)r->h, o->image, img->format, (int)img->width, (int)img->height,
                    img->raw ? "" : " without stored 8-bit values");
            return -1;
        }
        memcpy(in.data, img->raw, count);
        return 0;
    }
    float *px = malloc(count * sizeof *px);
    if (!px) {
        fprintf(stderr, "classify: out of memory\n");
        return -1;
    }
    image_resize(img, r->w, r->h, r->c, px);
    float lo, hi;
    if (o->has_range)
        lo = o->range_lo, hi = o->range_hi;
    else if (in.type == EDGE_FLOAT32)
        lo = 0.0f, hi = 1.0f;
    else
        lo = in.scale * (quant_min(in.type) - (float)in.zero_point),
        hi = in.scale * (quant_max(in.type) - (float)in.zero_point);
    const float step = (hi - lo) / 255.0f;
    for (size_t i = 0; i < count; i++) {
        const float x = lo + px[i] * step;
        if (in.type == EDGE_FLOAT32) {
            ((float *)in.data)[i] = x;
            continue;
        }
        float q = roundf(x / in.scale) + (float)in.zero_point;
        q = q < quant_min(in.type) ? quant_min(in.type) : (q > quant_max(in.type) ? quant_max(in.type) : q);
        if (in.type == EDGE_INT8)
            ((int8_t *)in.data)[i] = (int8_t)q;
        else
            ((uint8_t *)in.data)[i] = (uint8_t)q;
    }
    free(px);
    return 0;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static float output_score(const edge_tensor *t, size_t i) {
    switch (t->type) {
    case EDGE_INT8: return t->scale * (float)((int32_t)((const int8_t *)t->data)[i] - t->zero_point);
    case EDGE_UINT8: return t->scale * (float)((int32_t)((const uint8_t *)t->data)[i] - t->zero_point);
    case EDGE_FLOAT32: return ((const float *)t->data)[i];
    default: return 0.0f;
    }
}

/* Classify once; *winner gets the top class and *score its score. */
static int classify_once(runner *r, const options *o, const labels *lab, size_t *winner, float *score) {
    size_t len = 0;
    uint8_t *file = read_file(o->image, &len);
    if (!file) return -1;
    image img;
    char err[256];
    int rc = image_decode(file, len, &img, err, sizeof err);
    free(file);
    if (rc != 0) {
        fprintf(stderr, "classify: %s: %s\n", o->image, err);
        return -1;
    }
    if (o->signed_pixels) {
        if (!img.raw || img.channels != 1) {
            fprintf(stderr, "classify: --signed-pixels needs an 8-bit gray image (PGM, or BMP with a "
                            "palette); %s is not one\n", o->image);
            image_free(&img);
            return -1;
        }
        for (size_t i = 0; i < (size_t)img.width * (size_t)img.height; i++)
            img.pixels[i] = (uint8_t)(img.raw[i] ^ 0x80u); /* (int8)v + 128 */
    }
    rc = fill_input(r, o, &img);
    const char *kind = img.channels == 1 ? "gray" : "RGB";
    const int32_t iw = img.width, ih = img.height;
    const char *fmt = img.format;
    image_free(&img);
    if (rc != 0) return -1;

    edge_tensor in = edge_input(&r->m, 0);
    if (o->dump_in && write_file(o->dump_in, in.data, in.bytes) != 0) return -1;
    const double t0 = now_ms();
    edge_status s = edge_invoke(&r->m);
    const double t1 = now_ms();
    if (s != EDGE_OK) {
        fprintf(stderr, "classify: invoke: %s: %s\n", edge_status_str(s), edge_model_error(&r->m));
        return -1;
    }
    edge_tensor out = edge_output(&r->m, 0);
    if (o->dump_out && write_file(o->dump_out, out.data, out.bytes) != 0) return -1;
    if (out.type != EDGE_INT8 && out.type != EDGE_UINT8 && out.type != EDGE_FLOAT32) {
        fprintf(stderr, "classify: output type %s: int8, uint8 or float32 expected\n", edge_type_name(out.type));
        return -1;
    }
    const size_t n = out.bytes / edge_type_size(out.type);
    if (n == 0) {
        fprintf(stderr, "classify: the model's output is empty\n");
        return -1;
    }

    /* Top K by score; ties keep the lower class index first. */
    size_t k = (size_t)o->top < n ? (size_t)o->top : n;
    size_t *order = malloc(n * sizeof *order);
    if (!order) return -1;
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = 0; i < k; i++) {
        size_t best = i;
        for (size_t j = i + 1; j < n; j++)
            if (output_score(&out, order[j]) > output_score(&out, order[best])) best = j;
        size_t t = order[i];
        order[i] = order[best], order[best] = t;
    }
    char name_buf[32];
    const char *top_name = lab->count > order[0] ? lab->names[order[0]] : (snprintf(name_buf, sizeof name_buf, "class %zu", order[0]), name_buf);
    printf("%s: %s (%s %dx%d %s%s) -> %s\n", o->model, o->image, fmt, (int)iw, (int)ih, kind,
           o->raw ? ", raw" : (o->signed_pixels ? ", signed" : ""), top_name);
    for (size_t i = 0; i < k; i++) {
        const size_t c = order[i];
        printf("  %zu. %-20s %.4f", i + 1,
               lab->count > c ? lab->names[c] : (snprintf(name_buf, sizeof name_buf, "class %zu", c), name_buf),
               (double)output_score(&out, c));
        if (out.type == EDGE_INT8)
            printf("  (q %d)", ((const int8_t *)out.data)[c]);
        else if (out.type == EDGE_UINT8)
            printf("  (q %u)", ((const uint8_t *)out.data)[c]);
        printf("\n");
    }
    fprintf(stderr, "classify: invoke took %.2f ms\n", t1 - t0);
    fflush(stdout);
    *winner = order[0];
    *score = output_score(&out, order[0]);
    free(order);
    return 0;
}

/* ---------------- GPIO ---------------- */

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) {
    (void)sig;
    stop_requested = 1;
}

static int show_on_leds(const gpio_backend *be, gpio_chip *g, const options *o, size_t winner, float score) {
    char err[256];
    for (unsigned i = 0; i < o->n_leds; i++) {
        const int on = i == winner && score >= o->threshold;
        if (be->set_output(g, i, on, err, sizeof err) != 0) {
            fprintf(stderr, "classify: %s\n", err);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc;

    runner r;
    labels lab;
    memset(&r, 0, sizeof r);
    memset(&lab, 0, sizeof lab);
    const gpio_backend *be = NULL;
    gpio_chip *g = NULL;
    char err[512];
    rc = EXIT_FAIL;

    if (load_model(&r, o.model) != 0 || check_input(&r, o.model) != 0) goto done;
    if (o.labels && load_labels(&lab, o.labels) != 0) goto done;
    if (o.chip) {
        be = gpio_backend_for(o.chip, err, sizeof err);
        if (!be || !(g = be->open(o.chip, err, sizeof err)) ||
            (o.n_leds && be->request_outputs(g, o.leds, o.n_leds, err, sizeof err) != 0) ||
            (o.has_button && be->request_button(g, o.button, err, sizeof err) != 0)) {
            fprintf(stderr, "classify: %s\n", err);
            goto done;
        }
    }

    size_t winner = 0;
    float score = 0;
    if (classify_once(&r, &o, &lab, &winner, &score) != 0) goto done;
    if (g && o.n_leds && show_on_leds(be, g, &o, winner, score) != 0) goto done;
    if (g && o.has_button) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        fprintf(stderr, "classify: waiting for presses on line %u (Ctrl-C stops)\n", o.button);
        while (!stop_requested) {
            int p = be->wait_press(g, BUTTON_POLL_MS, err, sizeof err);
            if (p < 0) {
                if (stop_requested || errno == EINTR) break;
                /* The fake backend ends its script this way: a clean stop. */
                if (be == &gpio_fake) break;
                fprintf(stderr, "classify: %s\n", err);
                goto done;
            }
            if (p == 0) continue;
            if (classify_once(&r, &o, &lab, &winner, &score) != 0) goto done;
            if (o.n_leds && show_on_leds(be, g, &o, winner, score) != 0) goto done;
        }
    }
    rc = 0;
done:
    if (g) be->close(g);
    free(lab.names);
    free(lab.text);
    free(r.packed);
    free(r.arena);
    free(r.file);
    return rc;
}
