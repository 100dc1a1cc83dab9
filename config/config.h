/* SPDX-License-Identifier: MIT */
/*
 * The configuration of ascendoptd (docs/config.md): the JSON file,
 * validated field by field so that every error names the field, and the
 * defaults of each field left out.  Its own folder, below llm/ and the
 * daemon, so that both read it without one including the other.
 */
#ifndef ASCENDOPT_CONFIG_H
#define ASCENDOPT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits on what a config may ask for; every user-growable list has one. */
#define CONFIG_MAX_REPOS    256
#define CONFIG_MAX_PATTERNS 64
#define CONFIG_MAX_DEVICES  64

enum config_backend {
        CONFIG_BACKEND_SIM,
        CONFIG_BACKEND_ASCEND,
};

struct config_repo {
        char *path;      /* absolute, with "~/" expanded */
        char **branches; /* glob patterns such as "main" or "origin/release-*" */
        size_t n_branches;
        char **operators; /* globs of operator directories; none means auto-detect */
        size_t n_operators;
        bool llm_allowed;
};

struct config_rlimits {
        uint64_t address_space_mb;
        uint64_t cpu_s;
        uint64_t file_size_mb;
        uint64_t processes;
        uint64_t scratch_mb;
};

struct config_episode {
        int budget; /* measured evaluations, docs/design.md, "An episode" */
        int rounds;
        int stage1_steps;
        int stage2_steps;
        int turn_patience; /* a turn ends after this many evaluations with no new best; 0: never */
        int first_stage;   /* the stage whose turn comes first, 1 or 2 */
        double eval_timeout_s;
        double wall_budget_s;
        bool cancel_superseded; /* "on_supersede": "cancel" rather than "finish" */
        struct config_rlimits rlimits;
};

struct config_publish {
        char *prefix;
        double min_speedup;
        char *post_publish_hook; /* NULL when unset */
};

struct config_llm {
        bool enabled; /* false when the "llm" object is absent */
        char *endpoint;
        char *model;
        char *embedding_model; /* NULL: BM25 retrieval */
        char *api_key_file;
        char *api_key_env;
        double timeout_s;
        int max_tokens;
        double temperature;
        int max_concurrency;
        int64_t episode_token_budget;
        bool allow_loopback_for_all_repos;
};

struct config_limits {
        uint64_t store_max_bytes;
        uint64_t cache_max_bytes;
        uint64_t queue_max_items;
        uint64_t min_free_bytes; /* below it on the state dir's file system, no episode starts */
        unsigned control_connections; /* open on the control socket at once */
        unsigned control_request_s;   /* to send a whole request, from connecting */
};

/* "fleet": episodes run as Slurm jobs on the lab's nodes (docs/fleet.md) */
struct config_fleet {
        bool enabled;        /* false when the "fleet" object is absent */
        char *partition;     /* NULL: Slurm's default partition */
        char *gres;          /* sbatch --gres, "npu:1" by default */
        char *account;       /* NULL: none */
        char *shared_dir;    /* absolute; mounted at the same path on every node */
        double time_limit_s; /* per job */
        uint64_t shared_max_bytes;
        int max_jobs;     /* in flight at once */
        char *device_env; /* what tells a job its NPU */
};

struct config {
        char *source; /* the file it came from, for messages */
        char *state_dir;
        char *socket;
        enum config_backend backend;
        char *platform;    /* sim: the profile; ascend: the SoC expected of the devices */
        bool platform_set; /* given in the file rather than defaulted */
        char *toolkit;     /* ascend: the CANN toolkit (root or set_env.sh); NULL: look */
        /* ascend.third_lib_path: what cann-ops' build.sh --third_lib_path takes (a
         * folder with json/ inside), so that builds never download; NULL: none */
        char *third_lib_path;
        /* devices: a count for sim; a list, or auto, for ascend */
        int device_count;
        int device_ids[CONFIG_MAX_DEVICES];
        size_t n_device_ids;
        bool devices_auto;
        int max_parallel_compiles;
        /* "sandbox": "off": candidates may run without bubblewrap when it is
         * missing or unusable; by default nothing runs then */
        bool sandbox_off;
        int log_level;
        struct config_episode episode;
        struct config_repo *repos;
        size_t n_repos;
        struct config_publish publish;
        struct config_llm llm;
        struct config_limits limits;
        struct config_fleet fleet;
};

/*
 * Parses and validates a config document.  source names it in errors.
 * Fields left out take the documented defaults, resolved against the
 * environment (STATE_DIRECTORY, RUNTIME_DIRECTORY, XDG_*, HOME).  On failure
 * returns -EINVAL with one message in err naming the field, such as
 * "ascendoptd.json: .repos[2].path: expected a string".
 */
int config_parse(const char *text, size_t len, const char *source, struct config **ret_config,
                 char *err, size_t err_size);

/* Reads and parses a config file; -ENOENT and other read errors also fill err. */
int config_load(const char *path, struct config **ret_config, char *err, size_t err_size);

/* The parts of a state directory; state_path() is the only place their names are written. */
enum state_part {
        STATE_STORE,   /* the RocksDB store */
        STATE_SCRATCH, /* candidates' work directories and exports */
        STATE_CACHE,   /* compiled objects by content */
};

/* state_dir's part into buf ($ASCENDOPT_CACHE_DIR for the cache when set); -ENAMETOOLONG when it does not fit. */
int state_path(char *buf, size_t size, const char *state_dir, enum state_part part);

/*
 * The state directory and the control socket when neither the config nor a
 * flag names one, the same for the daemon and every command: systemd's
 * $STATE_DIRECTORY / $RUNTIME_DIRECTORY (set in the units), then
 * $ASCENDOPT_STATE_DIR / $ASCENDOPT_SOCKET, then the XDG directories, then
 * ~/.local/state/ascendopt and /run/ascendopt/ascendoptd.sock (without
 * HOME, /var/lib/ascendopt).  Written into buf; -ENAMETOOLONG when it does
 * not fit.
 */
int config_default_state_dir(char *buf, size_t size);
int config_default_socket(char *buf, size_t size);

/* Where the config lives by default: /etc/ascendopt/ascendoptd.json for root,
 * else $XDG_CONFIG_HOME (or ~/.config)/ascendopt/ascendoptd.json.  Writes into buf. */
const char *config_default_path(char *buf, size_t size);

struct config *config_free(struct config *config);

/* ------------------------------------------------------------ the systemd unit */

#define CONFIG_UNIT_NAME     "ascendoptd.service"
#define CONFIG_UNIT_MAX_LIST 64 /* entries of a list setting, drop-ins, unit directories */

/*
 * What the installed system unit and its drop-ins say about how the daemon
 * runs (config/unit.c).  Strings are owned; NULL when the setting is unset.
 */
struct config_unit {
        char *path;      /* the unit file */
        char **drop_ins; /* NAME.d/FILE.conf applied after it, in order */
        size_t n_drop_ins;
        char *user;  /* User=; NULL runs it as root */
        char *group; /* Group= */
        char **supplementary_groups;
        size_t n_supplementary_groups;
        char **state_directories; /* StateDirectory=, relative to /var/lib */
        size_t n_state_directories;
        bool private_devices; /* PrivateDevices= */
        char *device_policy;  /* DevicePolicy= */
        char **device_allow;  /* each DeviceAllow= value, e.g. "/dev/davinci0 rw" */
        size_t n_device_allow;
};

/*
 * Reads the system unit name (CONFIG_UNIT_NAME) as systemd finds it: the
 * first unit directory holding it ($ASCENDOPT_UNIT_DIR, a ':'-separated
 * list, else /etc/systemd/system, /run/systemd/system,
 * /usr/local/lib/systemd/system and /usr/lib/systemd/system), then the
 * NAME.d/FILE.conf drop-ins of every one of those directories in file-name
 * order, a name in an earlier directory hiding it in later ones.  Only the
 * [Service] settings above are read, as systemd applies them: a later
 * value replaces a single one, lists grow, an empty assignment empties a
 * list.  -ENOENT when no directory holds the unit; other -errno with a
 * message naming the file.
 */
int config_unit_read(const char *name, struct config_unit **ret, char *err, size_t err_size);
struct config_unit *config_unit_free(struct config_unit *unit);

const char *config_backend_name(enum config_backend backend);

#endif
