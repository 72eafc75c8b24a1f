/* The hip device without a GPU: with a HIP runtime installed (Debian's libamdhip64-5, or ROCm) but no
 * device, opening `hip` must fail cleanly with RK_ENODEVICE and say why, the context must still
 * compile, and the default order must fall through to a host device. Skipped (77) where no HIP
 * runtime is installed; on a machine with an AMD GPU it checks the device's properties instead. */
#include <dlfcn.h>
#include <stdlib.h>

#include "tests/unit/test_api_util.h"

static bool have_hip(void)
{
    const char *env = getenv("RK_HIP_LIB");
    static const char *const names[] = {"/opt/rocm/lib/libamdhip64.so.6", "libamdhip64.so.6", "libamdhip64.so.5",
                                        "libamdhip64.so"};
    if (env && *env)
        return true;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        /* RTLD_NOLOAD would not tell whether it exists: open and keep it, as the device does. */
        if (dlopen(names[i], RTLD_NOW | RTLD_LOCAL))
            return true;
    }
    return false;
}

int main(void)
{
    if (!have_hip()) {
        printf("test_api_hip: no HIP runtime (libamdhip64) installed: skipped\n");
        return 77;
    }
    rk_ctx_options o = {.device = "hip"};
    rk_ctx *ctx = NULL;
    rk_status st = rk_ctx_create(&o, &ctx);
    CHECK(ctx != NULL);
    if (st == RK_OK) {
        rk_device_info di;
        CHECK_OK(ctx, rk_device_get_info(ctx, &di));
        printf("test_api_hip: a HIP device is present: %s (%s), %d CUs, wave %d\n", di.name, di.arch,
               di.compute_units, di.wave_size);
        CHECK(strncmp(di.arch, "gfx", 3) == 0 && di.wave_size > 0 && di.compute_units > 0);
        void *p;
        CHECK_OK(ctx, rk_malloc(ctx, 1 << 20, &p));
        CHECK_OK(ctx, rk_memset(ctx, p, 0, 1 << 20));
        CHECK_OK(ctx, rk_free(ctx, p));
        rk_ctx_destroy(ctx);
        return api_finish("test_api_hip");
    }
    CHECK(st == RK_ENODEVICE);
    CHECK(strstr(rk_error(ctx), "no HIP device") != NULL);
    printf("test_api_hip: %s\n", rk_error(ctx));
    void *p = (void *)1;
    CHECK_ST(ctx, rk_malloc(ctx, 64, &p), RK_ENODEVICE, "no HIP device");
    CHECK(p == NULL);
    /* Still a compiler. */
    rk_compile_options co = {.target = "interp"};
    rk_program *prog;
    CHECK_OK(ctx, rk_compile(ctx, VADD_SRC, strlen(VADD_SRC), &co, &prog));
    rk_kernel *k;
    CHECK_OK(ctx, rk_program_kernel(prog, "vadd", &k));
    rk_arg args[4] = {rk_arg_ptr(NULL), rk_arg_ptr(NULL), rk_arg_ptr(NULL), rk_arg_i32(10)};
    CHECK_ST(ctx, rk_launch(k, NULL, args, 4, NULL), RK_ENODEVICE, "no HIP device");
    rk_ctx_destroy(ctx); /* prog with it */
    /* A second attempt gives the same answer (hipInit runs once per process). */
    CHECK(rk_ctx_create(&o, &ctx) == RK_ENODEVICE && strstr(rk_error(ctx), "no HIP device"));
    rk_ctx_destroy(ctx);
    /* The default order skips the absent GPU. */
    unsetenv("RK_DEVICE");
    CHECK(rk_ctx_create(NULL, &ctx) == RK_OK);
    rk_device_info di;
    rk_device_get_info(ctx, &di);
    CHECK(strcmp(di.kind, "emu") == 0 || strcmp(di.kind, "interp") == 0);
    rk_ctx_destroy(ctx);
    return api_finish("test_api_hip");
}
