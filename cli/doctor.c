/* SPDX-License-Identifier: MIT */
/*
 * ascendopt doctor: whether this host can run episodes, in one screen.
 * Every check is one line (status, name, what was found, and for a
 * warning or a failure the fix to apply), or one JSON object with --json.
 * The checks every backend has live here: the config, the service user
 * (from the installed systemd unit), the sandbox, the state directory,
 * its store and free space, the inotify limit, and the simulator's
 * compiler; the ascend backend's are in cli/doctor-ascend.c, a fleet's
 * in cli/doctor-fleet.c.
 */
#include "cli-internal.h"
#include "doctor-internal.h"

#include "config/config.h"

#include "npu/ascend.h"
#include "npu/npu.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include <event2/event.h>

/* The watcher's cap per followed repository (watchers.h, max_watches_per_repo's default). */
#define WATCHES_PER_REPO 4096
#define TOOL_OUTPUT_CAP  (64u << 10)

static void doctor_usage(FILE *f)
{
        fprintf(
            f,
            "Usage: ascendopt doctor [--config FILE] [--backend sim|ascend] [--device N]\n"
            "                        [--user NAME] [--json]\n"
            "\n"
            "Checks whether this host can run episodes and prints one line per check:\n"
            "ok, WARN or FAIL, what it checks, what it found and, for a warning or a\n"
            "failure, the fix to apply.  With the ascend backend it also builds, installs,\n"
            "runs and profiles a trivial operator on the NPU, in a temporary directory.\n"
            "\n"
            "  --config FILE     the daemon's config (default: %s)\n"
            "  --backend NAME    check sim or ascend instead of the config's backend\n"
            "                    (sim without a config)\n"
            "  --device N        ascend: the NPU's logic id to check and run on (default:\n"
            "                    the config's devices, the trivial operator on the first)\n"
            "  --user NAME       the user ascendoptd runs as (default: User= of the\n"
            "                    installed ascendoptd.service and its drop-ins, else you)\n"
            "  --json            one object: {\"backend\", \"checks\": [{\"name\", \"status\",\n"
            "                    \"detail\", \"fix\"}]}, status ok, warn or fail\n"
            "\n"
            "Exit status: 0 when no check fails (warnings allowed), 1 when one does,\n"
            "64 on a usage error.\n",
            "~/.config/ascendopt/ascendoptd.json, /etc/ascendopt/ascendoptd.json for root");
}

/* ------------------------------------------------------------ the report */

const char *doctor_config_name(const struct doctor *d)
{
        return d->config_path[0] ? d->config_path : "the config";
}

void doctor_report(struct doctor *d, const char *name, enum doctor_status status, const char *fix,
                   const char *fmt, ...)
{
        static const char *const json_words[] = { "ok", "warn", "fail" };
        static const char *const text_words[] = { "ok", "WARN", "FAIL" };
        char detail[4096];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(detail, sizeof(detail), fmt, ap);
        va_end(ap);
        if (status == DOCTOR_OK)
                fix = NULL;
        d->warnings += status == DOCTOR_WARN;
        d->failures += status == DOCTOR_FAIL;
        json_array_append_new(d->checks,
                              json_pack("{s:s, s:s, s:s, s:s?}", "name", name, "status",
                                        json_words[status], "detail", detail, "fix", fix));
        if (d->json)
                return;
        printf("%-4s  %-16s %s%s%s\n", text_words[status], name, detail, fix ? " -- fix: " : "",
               fix ? fix : "");
        fflush(stdout);
}

const char *doctor_fix(char *buf, size_t size, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        return buf;
}

/* ------------------------------------------------------------ tools */

struct tool_wait {
        struct doctor_tool *tool;
        bool done;
};

static void on_tool_done(const struct child_result *r, void *userdata)
{
        struct tool_wait *w = userdata;
        const char *stderr_text = r->err.data ? r->err.data : "";
        char ended[128];

        w->tool->ok = r->exit_code == 0 && !r->timed_out && !r->signal;
        w->tool->out = strdup(r->out.data ? r->out.data : "");
        snprintf(w->tool->how, sizeof(w->tool->how), "%s%s%.*s",
                 child_result_describe(r, ended, sizeof(ended)), *stderr_text ? ": " : "",
                 (int)strcspn(stderr_text, "\n"), stderr_text);
        w->done = true;
}

int doctor_run_tool(struct doctor *d, const char *const *argv, const char *const *envp,
                    double timeout_s, struct doctor_tool *t)
{
        struct child_spec spec = {
                .argv = argv, .envp = envp, .timeout_s = timeout_s, .output_cap = TOOL_OUTPUT_CAP
        };
        struct tool_wait w = { .tool = t };
        int r;

        memset(t, 0, sizeof(*t));
        if (!d->runner)
                return -ENOENT;
        r = child_start(d->runner, &spec, on_tool_done, &w, NULL);
        if (r < 0)
                return r;
        while (!w.done)
                event_base_loop(d->base, EVLOOP_ONCE);
        return t->out ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------ access */

static const char *group_name(gid_t gid, char *buf, size_t size)
{
        struct group *g = getgrgid(gid);

        if (g)
                snprintf(buf, size, "%s", g->gr_name);
        else
                snprintf(buf, size, "%u", (unsigned)gid);
        return buf;
}

int doctor_user_access(const struct doctor *d, const char *path, int mode, char *why,
                       size_t why_size, char *fix, size_t fix_size)
{
        struct path_access a;
        struct passwd *owner;
        char group[64];
        int r = path_user_access(path, d->uid, d->groups, d->n_groups, mode, &a);

        if (r == 0)
                return 0;
        if (r != -EACCES) {
                snprintf(why, why_size, "%s: %s", a.path, strerror(-r));
                doctor_fix(fix, fix_size, "create %s", a.path);
                return r;
        }
        owner = getpwuid(a.owner);
        group_name(a.group, group, sizeof(group));
        snprintf(why, why_size, "%s is %s:%s %04o, and %s (%s%s) cannot %s it", a.path,
                 owner ? owner->pw_name : "?", group, (unsigned)a.mode, d->user,
                 a.is_owner   ? "its owner"
                 : a.in_group ? "in its group "
                              : "not its owner, not in group ",
                 a.is_owner ? "" : group,
                 strcmp(a.path, path) != 0 ? "search"
                 : a.missing & W_OK        ? "write"
                                           : "read");
        if (strcmp(a.path, path) != 0)
                doctor_fix(fix, fix_size, "sudo chmod o+x %s", a.path);
        else if (!a.is_owner && !a.in_group && ((int)(a.mode >> 3) & a.missing) == a.missing)
                doctor_fix(fix, fix_size, "sudo usermod -aG %s %s, then restart ascendoptd", group,
                           d->user);
        else
                return -EPERM; /* the mode itself refuses: the caller knows the fix */
        return r;
}

/* ------------------------------------------------------------ config and user */

static int check_config(struct doctor *d, const char *flag, bool backend_given,
                        enum config_backend backend)
{
        char err[2048], path[PATH_MAX], fix[PATH_MAX + 128];
        const char *file = flag ? flag : config_default_path(path, sizeof(path));
        int r = config_load(file, &d->config, err, sizeof(err));

        if (r == 0) {
                snprintf(d->config_path, sizeof(d->config_path), "%s", file);
                d->backend = backend_given ? backend : d->config->backend;
                doctor_report(d, "config", DOCTOR_OK, NULL, "%s: backend %s%s%s%s", file,
                              config_backend_name(d->config->backend),
                              d->backend != d->config->backend ? "; checking " : "",
                              d->backend != d->config->backend ? config_backend_name(d->backend)
                                                               : "",
                              d->backend != d->config->backend ? ", as --backend asks" : "");
                return 0;
        }
        if (r == -ENOENT && !flag) {
                doctor_fix(fix, sizeof(fix),
                           "write %s (docs/config.md); for NPUs it needs at least {\"backend\": "
                           "\"ascend\", \"sandbox\": \"off\"}",
                           file);
                doctor_report(d, "config", DOCTOR_WARN, fix,
                              "no config at %s: ascendoptd will not start without one; checking "
                              "the defaults",
                              file);
        } else {
                doctor_fix(fix, sizeof(fix),
                           r == -ENOENT ? "name an existing file with --config"
                                        : "correct what it names, then check it with "
                                          "'ascendoptd --check-config --config %s'",
                           file);
                doctor_report(d, "config", DOCTOR_FAIL, fix, "%s; checking the defaults", err);
        }
        d->backend = backend_given ? backend : CONFIG_BACKEND_SIM;
        return config_parse("{}", 2, "defaults", &d->config, err, sizeof(err));
}

/* Adds the unit's Group= and SupplementaryGroups= to the user's groups; false on an unknown one. */
static bool add_unit_groups(struct doctor *d, char *missing, size_t size)
{
        struct config_unit *u = d->unit;

        for (size_t i = 0; i <= u->n_supplementary_groups; i++) {
                const char *name =
                    i < u->n_supplementary_groups ? u->supplementary_groups[i] : u->group;
                struct group *g = name ? getgrnam(name) : NULL;
                if (!name)
                        continue;
                if (!g) {
                        snprintf(missing, size, "%s", name);
                        return false;
                }
                if (d->n_groups < DOCTOR_MAX_GROUPS)
                        d->groups[d->n_groups++] = g->gr_gid;
        }
        return true;
}

static int check_user(struct doctor *d, const char *flag)
{
        struct passwd *pw;
        struct strbuf groups = { 0 };
        char source[PATH_MAX + 64], missing[256], fix[512], name[64];
        bool from_unit = !flag && d->unit;
        int n = DOCTOR_MAX_GROUPS;

        if (flag) {
                snprintf(d->user, sizeof(d->user), "%s", flag);
                snprintf(source, sizeof(source), "--user");
        } else if (d->unit) {
                snprintf(d->user, sizeof(d->user), "%s", d->unit->user ? d->unit->user : "root");
                snprintf(source, sizeof(source), "User= of %s%s", d->unit->path,
                         d->unit->n_drop_ins ? " and its drop-ins" : "");
        } else {
                pw = getpwuid(geteuid());
                snprintf(d->user, sizeof(d->user), "%s", pw ? pw->pw_name : "?");
                snprintf(source, sizeof(source), "you: no %s is installed", CONFIG_UNIT_NAME);
        }
        pw = getpwnam(d->user);
        if (!pw) {
                doctor_report(d, "user", DOCTOR_FAIL,
                              from_unit ? "create it (sudo systemd-sysusers reads the "
                                          "sysusers.d/ascendopt.conf ascendopt installs), or set "
                                          "User= in a drop-in"
                                        : "name an existing user with --user",
                              "%s (%s): no such user", d->user, source);
                return 0;
        }
        d->uid = pw->pw_uid;
        if (getgrouplist(d->user, pw->pw_gid, d->groups, &n) < 0)
                n = DOCTOR_MAX_GROUPS;
        d->n_groups = (size_t)n;
        d->user_known = true;
        /* systemd gives the unit's groups to its user, whoever asks */
        if (d->unit && strcmp(d->user, d->unit->user ? d->unit->user : "root") == 0 &&
            !add_unit_groups(d, missing, sizeof(missing))) {
                doctor_fix(fix, sizeof(fix),
                           "install the Ascend driver, which creates it (or: sudo groupadd %s), or "
                           "drop it from the unit's drop-in",
                           missing);
                doctor_report(d, "user", DOCTOR_FAIL, fix,
                              "%s: group %s of %s does not exist, and systemd refuses to start "
                              "the unit without it",
                              d->user, missing, d->unit->path);
                return 0;
        }
        for (size_t i = 0; i < d->n_groups; i++)
                strbuf_printf(&groups, "%s%s", i ? " " : "",
                              group_name(d->groups[i], name, sizeof(name)));
        if (groups.oom) {
                strbuf_release(&groups);
                return -ENOMEM;
        }
        doctor_report(d, "user", DOCTOR_OK, NULL, "%s (uid %u, groups %s), from %s", d->user,
                      (unsigned)d->uid, groups.buf ? groups.buf : "none", source);
        strbuf_release(&groups);
        return 0;
}

/* ------------------------------------------------------------ every backend */

static void check_sandbox(struct doctor *d)
{
        char fix[PATH_MAX + 128];

        if (!d->runner) {
                doctor_report(d, "sandbox", DOCTOR_FAIL,
                              "reinstall ascendopt (make install puts it in " ASCENDOPT_LIBEXECDIR
                              "), or point ASCENDOPT_EXEC_HELPER at it",
                              "ascendopt-exec, which starts every child, is missing");
                return;
        }
        if (d->backend == CONFIG_BACKEND_ASCEND) {
                doctor_fix(fix, sizeof(fix),
                           "set \"sandbox\": \"off\" in %s (docs/real-npus.md), and watch only "
                           "repositories whose committers you trust with %s",
                           doctor_config_name(d), d->user);
                if (d->config->sandbox_off)
                        doctor_report(d, "sandbox", DOCTOR_WARN,
                                      "watch only repositories whose committers you trust with "
                                      "that user (docs/security.md)",
                                      "off, as the ascend backend needs: %s; they run as %s",
                                      ASCEND_UNSANDBOXED_HELP, d->user);
                else
                        doctor_report(d, "sandbox", DOCTOR_FAIL, fix,
                                      "not turned off, which the ascend backend needs: %s",
                                      ASCEND_UNSANDBOXED_HELP);
                return;
        }
        if (child_runner_has_sandbox(d->runner))
                doctor_report(d, "sandbox", DOCTOR_OK, NULL, "bubblewrap works (tried as you)");
        else
                doctor_report(d, "sandbox", d->config->sandbox_off ? DOCTOR_WARN : DOCTOR_FAIL,
                              "sudo apt-get install bubblewrap, and allow unprivileged user "
                              "namespaces (docs/troubleshooting.md); or, only where you trust "
                              "every committer, \"sandbox\": \"off\" in the config",
                              "%s",
                              d->config->sandbox_off ? "none works; \"sandbox\": \"off\" "
                                                       "lets candidates run without one"
                                                     : CHILD_NO_SANDBOX_HELP);
}

/*
 * The state directory the daemon uses: the config's, unless the config
 * leaves it to the default and the service user runs under a unit whose
 * StateDirectory= systemd makes in /var/lib.
 */
static bool state_dir_of(const struct doctor *d, bool user_from_unit, char *buf, size_t size)
{
        char fallback[PATH_MAX];

        snprintf(buf, size, "%s", d->config->state_dir);
        if (!user_from_unit || !d->unit->n_state_directories ||
            config_default_state_dir(fallback, sizeof(fallback)) < 0 ||
            strcmp(fallback, d->config->state_dir) != 0)
                return false;
        return format_path(buf, size, "/var/lib/%s", d->unit->state_directories[0]) == 0;
}

static void check_free_space(struct doctor *d, const char *dir, const char *existing)
{
        uint64_t free_bytes = store_free_bytes(existing), min = d->config->limits.min_free_bytes;
        char fix[PATH_MAX + 256];

        doctor_fix(fix, sizeof(fix),
                   "free space there ('ascendopt gc --max-cache-bytes N' trims the object cache), "
                   "or lower limits.min_free_bytes in %s",
                   doctor_config_name(d));
        if (free_bytes < min || free_bytes < STORE_MIN_FREE_BYTES)
                doctor_report(d, "free space", DOCTOR_FAIL, fix,
                              "%" PRIu64 " MiB free on the file system of %s, under "
                              "limits.min_free_bytes (%" PRIu64 " MiB): no episode starts",
                              free_bytes >> 20, dir, min >> 20);
        else
                doctor_report(d, "free space", DOCTOR_OK, NULL,
                              "%.1f GiB free on the file system of %s (limits.min_free_bytes "
                              "%" PRIu64 " MiB)",
                              (double)free_bytes / (1 << 30), dir, min >> 20);
}

static void check_store(struct doctor *d, const char *dir)
{
        char store[PATH_MAX], who[512], fix[256];
        int r;

        if (state_path(store, sizeof(store), dir, STATE_STORE) < 0)
                return;
        r = store_holder(store, who, sizeof(who));
        doctor_fix(fix, sizeof(fix),
                   "run ascendopt doctor as root or as %s to see whether a daemon "
                   "holds it",
                   d->user);
        if (r > 0)
                doctor_report(d, "store", DOCTOR_OK, NULL,
                              "%s is open by %s: a daemon runs on it, so optimize, rewind, "
                              "corpus and gc need it stopped or another --state-dir",
                              store, who);
        else if (r == 0)
                doctor_report(d, "store", DOCTOR_OK, NULL, "%s",
                              access(store, F_OK) == 0 ? "not open by any process"
                                                       : "none yet: ascendoptd makes it");
        else
                doctor_report(d, "store", DOCTOR_WARN, fix, "%s: cannot read its lock: %s", store,
                              strerror(-r));
}

/* dir, or the nearest directory above it that exists; -errno of a stat that fails otherwise. */
static int nearest_existing(const char *dir, char *buf, size_t size, struct stat *st)
{
        char *slash;

        snprintf(buf, size, "%s", dir);
        while (stat(buf, st) < 0) {
                if (errno != ENOENT || !(slash = strrchr(buf, '/')))
                        return -errno;
                slash[slash == buf] = '\0'; /* "/a" goes up to "/" */
        }
        return 0;
}

static void check_state_dir(struct doctor *d, bool user_from_unit)
{
        char dir[PATH_MAX], existing[PATH_MAX], why[PATH_MAX + 256], fix[PATH_MAX + 128];
        bool by_systemd = state_dir_of(d, user_from_unit, dir, sizeof(dir));
        struct stat st;
        int r = nearest_existing(dir, existing, sizeof(existing), &st);

        if (r < 0) {
                doctor_report(d, "state dir", DOCTOR_FAIL, "run ascendopt doctor as root", "%s: %s",
                              existing, strerror(-r));
                return;
        }
        if (strcmp(existing, dir) == 0 && !S_ISDIR(st.st_mode)) {
                doctor_report(d, "state dir", DOCTOR_FAIL, "move it away, or set \"state_dir\"",
                              "%s is no directory", dir);
                return;
        }
        if (strcmp(existing, dir) != 0 && by_systemd) {
                doctor_report(d, "state dir", DOCTOR_OK, NULL,
                              "%s does not exist yet: systemd makes it for %s at start "
                              "(StateDirectory=)",
                              dir, d->user);
        } else if (d->user_known) {
                r = doctor_user_access(
                    d, existing, strcmp(existing, dir) == 0 ? R_OK | W_OK | X_OK : W_OK | X_OK, why,
                    sizeof(why), fix, sizeof(fix));
                if (r == -EPERM && strcmp(existing, dir) != 0)
                        doctor_fix(fix, sizeof(fix), "sudo install -d -o %s -m 0700 %s", d->user,
                                   dir);
                else if (r == -EPERM)
                        doctor_fix(fix, sizeof(fix), "sudo chown -R %s %s", d->user, dir);
                if (r < 0)
                        doctor_report(d, "state dir", DOCTOR_FAIL, fix, "%s: %s", dir, why);
                else if (strcmp(existing, dir) != 0)
                        doctor_report(d, "state dir", DOCTOR_OK, NULL,
                                      "%s does not exist yet; %s may make it in %s", dir, d->user,
                                      existing);
                else
                        doctor_report(d, "state dir", DOCTOR_OK, NULL, "%s, writable by %s", dir,
                                      d->user);
        }
        check_free_space(d, dir, existing);
        check_store(d, dir);
}

static void check_inotify(struct doctor *d)
{
        const char *path = "/proc/sys/fs/inotify/max_user_watches";
        uint64_t need = (uint64_t)WATCHES_PER_REPO * d->config->n_repos, watches = 0;
        FILE *f = fopen(path, "re");
        bool read = f && fscanf(f, "%" SCNu64, &watches) == 1;

        if (f)
                fclose(f);
        if (!read) {
                doctor_report(d, "inotify", DOCTOR_WARN,
                              "none here: ascendoptd needs inotify to follow repositories",
                              "cannot read %s", path);
        } else if (watches < need) {
                doctor_report(d, "inotify", DOCTOR_WARN,
                              "sudo sysctl --system loads the 60-ascendopt-inotify.conf "
                              "ascendopt installs in sysctl.d (or: sudo sysctl -w "
                              "fs.inotify.max_user_watches=524288)",
                              "max_user_watches %" PRIu64 ", and %zu repositories may take up to "
                              "%d watches each",
                              watches, d->config->n_repos, WATCHES_PER_REPO);
        } else {
                doctor_report(d, "inotify", DOCTOR_OK, NULL,
                              "max_user_watches %" PRIu64 ", enough for %zu repositories at up to "
                              "%d watches each",
                              watches, d->config->n_repos, WATCHES_PER_REPO);
        }
}

/* The first line of `PROGRAM --version`, found in PATH; false when it is missing. */
static bool program_version(struct doctor *d, const char *program, char *path, size_t path_size,
                            char *version, size_t version_size)
{
        struct ascend_env *env = NULL;
        const char *argv[] = { path, "--version", NULL };
        struct doctor_tool t;
        char err[1024];
        bool found = ascend_env_from_envp(NULL, &env) == 0 &&
                     ascend_env_which(env, program, NULL, path, path_size, err, sizeof(err)) == 0;

        ascend_env_free(env);
        if (!found)
                return false;
        snprintf(version, version_size, "version unknown");
        if (doctor_run_tool(d, argv, NULL, 30, &t) == 0 && t.ok)
                snprintf(version, version_size, "%.*s", (int)strcspn(t.out, "\n"), t.out);
        free(t.out);
        return true;
}

/* The simulated NPU: its headers and runtime, and the g++ it compiles every candidate with. */
static void check_sim(struct doctor *d)
{
        struct npu_sim_paths paths = { 0 };
        char gxx[PATH_MAX], version[256];

        if (npu_sim_paths_find(&paths) < 0)
                doctor_report(d, "simulator", DOCTOR_FAIL,
                              "reinstall ascendopt (make install copies it to " ASCENDOPT_DATADIR
                              "/sim), or point ASCENDOPT_SIM_DIR at a build's sim/",
                              "its headers and runtime are not next to the program, in "
                              "$ASCENDOPT_SIM_DIR or in " ASCENDOPT_DATADIR "/sim");
        else
                doctor_report(d, "simulator", DOCTOR_OK, NULL, "%s", paths.root);
        npu_sim_paths_release(&paths);
        if (program_version(d, "g++", gxx, sizeof(gxx), version, sizeof(version)))
                doctor_report(d, "compiler", DOCTOR_OK, NULL,
                              "%s (%s): the sim compiles every candidate with g++ -std=gnu++17",
                              gxx, version);
        else
                doctor_report(d, "compiler", DOCTOR_FAIL,
                              "sudo apt-get install g++ (scripts/install-deps)",
                              "no g++ in PATH: the sim compiles every candidate with it");
}

/* ------------------------------------------------------------ the command */

static void print_summary(const struct doctor *d)
{
        if (d->json) {
                json_t *doc = json_pack("{s:s, s:O}", "backend", config_backend_name(d->backend),
                                        "checks", d->checks);
                cli_print_json(doc);
                json_decref(doc);
                return;
        }
        printf("\nbackend %s: %zu check%s, %zu warning%s, %zu failure%s: %s\n",
               config_backend_name(d->backend), json_array_size(d->checks),
               json_array_size(d->checks) == 1 ? "" : "s", d->warnings, d->warnings == 1 ? "" : "s",
               d->failures, d->failures == 1 ? "" : "s",
               d->failures ? "this host cannot run episodes until the failures are fixed"
                           : "this host can run episodes");
}

int cmd_doctor(int argc, char **argv)
{
        static const struct option options[] = {
                { "config", required_argument, NULL, 'c' },
                { "backend", required_argument, NULL, 'B' },
                { "device", required_argument, NULL, 'D' },
                { "user", required_argument, NULL, 'u' },
                { "json", no_argument, NULL, 'j' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        struct doctor d = { 0 };
        struct child_runner_options runner_options = { .allow_unsandboxed = true };
        const char *config_flag = NULL, *user_flag = NULL;
        enum npu_backend backend = NPU_BACKEND_SIM;
        bool backend_given = false;
        char err[1024];
        uint64_t number;
        int opt, ret = EX_OK, r;

        optind = 1;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 'c':
                        config_flag = optarg;
                        break;
                case 'B':
                        if (npu_backend_from_name(optarg, &backend) < 0)
                                return cli_usage_error("doctor", "--backend is sim or ascend");
                        backend_given = true;
                        break;
                case 'D':
                        if (cli_parse_u64(optarg, &number) < 0 || number >= CONFIG_MAX_DEVICES)
                                return cli_usage_error("doctor", "--device wants 0..63");
                        d.ids[0] = (int)number;
                        d.n_ids = 1;
                        d.device_given = true;
                        break;
                case 'u':
                        user_flag = optarg;
                        break;
                case 'j':
                        d.json = true;
                        break;
                case 'h':
                        doctor_usage(stdout);
                        return EX_OK;
                default:
                        doctor_usage(stderr);
                        return EX_USAGE;
                }
        }
        if (optind != argc)
                return cli_usage_error("doctor", "it takes no arguments");
        d.checks = json_array();
        d.base = event_base_new();
        if (!d.checks || !d.base) {
                ret = EX_OSERR;
                goto out;
        }
        /* the runner's start-up tries bubblewrap once, which is the sandbox check */
        if (child_runner_new(d.base, &runner_options, &d.runner) < 0)
                d.runner = NULL;
        r = check_config(&d, config_flag, backend_given,
                         backend == NPU_BACKEND_ASCEND ? CONFIG_BACKEND_ASCEND
                                                       : CONFIG_BACKEND_SIM);
        if (r == 0) {
                r = config_unit_read(CONFIG_UNIT_NAME, &d.unit, err, sizeof(err));
                if (r < 0 && r != -ENOENT && r != -ENOMEM)
                        doctor_report(&d, "systemd", DOCTOR_WARN, "correct the file it names", "%s",
                                      err);
                r = r == -ENOMEM ? r : 0;
        }
        if (r == 0)
                r = check_user(&d, user_flag);
        if (r < 0) {
                fprintf(stderr, "ascendopt doctor: %s\n", strerror(-r));
                ret = EX_OSERR;
                goto out;
        }
        check_sandbox(&d);
        check_state_dir(&d, !user_flag && d.unit);
        check_inotify(&d);
        if (d.backend == CONFIG_BACKEND_ASCEND)
                doctor_check_ascend(&d);
        else
                check_sim(&d);
        if (d.config->fleet.enabled)
                doctor_check_fleet(&d);
        print_summary(&d);
        ret = d.failures ? 1 : EX_OK;
out:
        child_runner_free(d.runner);
        if (d.base)
                event_base_free(d.base);
        config_unit_free(d.unit);
        config_free(d.config);
        json_decref(d.checks);
        return ret;
}
