/* SPDX-License-Identifier: MIT */
/*
 * The RocksDB store: column families per kind of record, synced write
 * batches, a schema version in meta, content-addressed blobs compressed
 * with zstd, and the candidate memo.  RocksDB's errptr strings become -EIO
 * plus the message for the caller.
 */
#include "store.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <rocksdb/c.h>

#define SCHEMA_KEY "schema_version"
#define OWNER_FILE "OWNER"

/*
 * RocksDB must never meet a full disk itself.  Debian's librocksdb (7.8) is
 * built with assertions, and a write that fails for space followed by the
 * sync RocksDB always does next aborts the process
 * (WritableFileWriter::AssertFalseAndGetStatusForPrevError), on every
 * restart while the disk stays full.  So the store refuses to open, write
 * or compact with less than STORE_MIN_FREE_BYTES free (plus what the step
 * itself writes), and a memtable is kept small enough that its flush fits
 * in that reserve.
 */
#define STORE_WRITE_BUFFER_BYTES (8u << 20)

static const char *const family_names[STORE_FAMILY_COUNT] = {
        [STORE_META] = "meta",
        [STORE_REPOS] = "repos",
        [STORE_QUEUE] = "queue",
        [STORE_EPISODES] = "episodes",
        [STORE_CANDIDATES] = "candidates",
        [STORE_BLOBS] = "blobs",
        [STORE_EXPERIENCE] = "experience",
};

struct store {
        char *dir;
        rocksdb_t *db;
        rocksdb_options_t *options;
        rocksdb_options_t *family_options[STORE_FAMILY_COUNT + 1];
        rocksdb_column_family_handle_t *families[STORE_FAMILY_COUNT + 1]; /* [0] is "default" */
        rocksdb_readoptions_t *read;
        rocksdb_writeoptions_t *write_synced;
        int schema_version;
};

/* What the calling thread's last failed write or compaction said (store_last_error). */
static __thread char last_error[512];

struct store_batch {
        struct store *store;
        rocksdb_writebatch_t *batch;
};

const char *store_family_name(enum store_family family)
{
        return family < STORE_FAMILY_COUNT ? family_names[family] : "?";
}

static rocksdb_column_family_handle_t *handle(struct store *s, enum store_family family)
{
        return s->families[family + 1];
}

/* Takes RocksDB's error string: copies it into err and frees it. */
static int rocks_error(char *rocks_err, const char *what, const char *dir, char *err,
                       size_t err_size)
{
        int r = rocks_err && strstr(rocks_err, "No space left") ? -ENOSPC : -EIO;

        if (err && err_size)
                snprintf(err, err_size, "store %s: %s: %s", dir, what,
                         rocks_err ? rocks_err : "unknown error");
        rocksdb_free(rocks_err);
        return r;
}

uint64_t store_free_bytes(const char *dir)
{
        struct statvfs st;

        if (statvfs(dir, &st) < 0)
                return UINT64_MAX; /* not ours to judge: RocksDB will say */
        return (uint64_t)st.f_bavail * st.f_frsize;
}

/* The bytes of RocksDB's write-ahead logs in dir: opening replays them into new tables. */
static uint64_t wal_bytes(const char *dir)
{
        uint64_t total = 0;
        struct dirent *e;
        struct stat st;
        DIR *d = opendir(dir);

        if (!d)
                return 0;
        while ((e = readdir(d))) {
                size_t len = strlen(e->d_name);

                if (len > 4 && strcmp(e->d_name + len - 4, ".log") == 0 &&
                    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
                        total += (uint64_t)st.st_size;
        }
        closedir(d);
        return total;
}

/* -ENOSPC, saying how much is free and needed, unless dir has room for extra bytes. */
static int check_space(const char *dir, const char *what, uint64_t extra, char *err,
                       size_t err_size)
{
        uint64_t free_bytes = store_free_bytes(dir), need = STORE_MIN_FREE_BYTES + extra;

        if (free_bytes >= need)
                return 0;
        if (err && err_size)
                snprintf(
                    err, err_size,
                    "store %s: cannot %s: %" PRIu64 " MiB free on its file system, it needs "
                    "%" PRIu64
                    " MiB; free some space (ascendopt gc --max-cache-bytes trims the object cache)",
                    dir, what, free_bytes >> 20, (need + (1u << 20) - 1) >> 20);
        return -ENOSPC;
}

/* Describes who holds the store, from the OWNER file the holder wrote. */
static void describe_owner(const char *dir, char *buf, size_t size)
{
        char path[PATH_MAX], text[256] = "";
        FILE *f;

        buf[0] = '\0';
        if (format_path(path, sizeof(path), "%s/%s", dir, OWNER_FILE) < 0)
                return;
        f = fopen(path, "re");
        if (!f)
                return;
        if (fgets(text, sizeof(text), f)) {
                text[strcspn(text, "\n")] = '\0';
                snprintf(buf, size, " by %s", text);
        }
        fclose(f);
}

static void write_owner(const char *dir)
{
        char path[PATH_MAX], exe[PATH_MAX] = "?";
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        FILE *f;

        if (n > 0)
                exe[n] = '\0';
        if (format_path(path, sizeof(path), "%s/%s", dir, OWNER_FILE) < 0)
                return;
        f = fopen(path, "we");
        if (!f)
                return;
        fprintf(f, "pid %d (%s)\n", (int)getpid(), exe);
        fclose(f);
}

int store_holder(const char *dir, char *buf, size_t size)
{
        /* RocksDB takes a POSIX record lock on LOCK; an OFD query also sees our own */
        struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
        char path[PATH_MAX], owner[300];
        int fd, r = 0;

        buf[0] = '\0';
        if (format_path(path, sizeof(path), "%s/LOCK", dir) < 0)
                return -ENAMETOOLONG;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        if (fcntl(fd, F_OFD_GETLK, &lock) < 0)
                r = -errno;
        else if (lock.l_type != F_UNLCK)
                r = 1;
        close(fd);
        if (r <= 0)
                return r;
        describe_owner(dir, owner, sizeof(owner));
        if (owner[0])
                snprintf(buf, size, "%s", owner + strlen(" by "));
        else if (lock.l_pid > 0)
                snprintf(buf, size, "pid %d", (int)lock.l_pid);
        else
                snprintf(buf, size, "another process");
        return 1;
}

static int check_schema(struct store *s, char *err, size_t err_size)
{
        void *value = NULL;
        size_t len = 0;
        char text[32];
        int r;

        r = store_get(s, STORE_META, SCHEMA_KEY, strlen(SCHEMA_KEY), &value, &len);
        if (r == -ENOENT) {
                struct store_batch *b = store_batch_new(s);
                if (!b)
                        return -ENOMEM;
                snprintf(text, sizeof(text), "%d", STORE_SCHEMA_VERSION);
                store_batch_put(b, STORE_META, SCHEMA_KEY, strlen(SCHEMA_KEY), text, strlen(text));
                r = store_batch_commit(b);
                store_batch_free(b);
                s->schema_version = STORE_SCHEMA_VERSION;
                return r;
        }
        if (r < 0)
                return r;
        snprintf(text, sizeof(text), "%.*s", (int)(len < 31 ? len : 31), (char *)value);
        free(value);
        s->schema_version = atoi(text);
        if (s->schema_version > STORE_SCHEMA_VERSION) {
                snprintf(err, err_size,
                         "store %s: written by a newer ascendopt (schema %d); this build reads "
                         "schema %d or older. Use the newer ascendopt, or move the store away "
                         "to start afresh",
                         s->dir, s->schema_version, STORE_SCHEMA_VERSION);
                return -EPROTO;
        }
        if (s->schema_version < 1) {
                snprintf(err, err_size, "store %s: schema version \"%s\" is not valid", s->dir,
                         text);
                return -EPROTO;
        }
        /* Older schemas would be migrated here, one step per version, each
         * step a single synced batch.  Schema 1 is the first. */
        return 0;
}

int store_open(const char *dir, struct store **ret_store, char *err, size_t err_size)
{
        const char *names[STORE_FAMILY_COUNT + 1];
        const rocksdb_options_t *family_options[STORE_FAMILY_COUNT + 1];
        struct store *s;
        char *rocks_err = NULL;
        int r;

        r = mkdir_p(dir);
        if (r < 0) {
                snprintf(err, err_size, "store %s: cannot create the directory: %s", dir,
                         strerror(-r));
                return r;
        }
        r = check_space(dir, "open", wal_bytes(dir), err, err_size);
        if (r < 0)
                return r;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->dir = strdup(dir);
        s->options = rocksdb_options_create();
        s->read = rocksdb_readoptions_create();
        s->write_synced = rocksdb_writeoptions_create();
        if (!s->dir || !s->options || !s->read || !s->write_synced) {
                r = -ENOMEM;
                goto fail;
        }
        rocksdb_options_set_create_if_missing(s->options, 1);
        rocksdb_options_set_create_missing_column_families(s->options, 1);
        rocksdb_options_set_max_open_files(s->options, 256);
        rocksdb_options_set_keep_log_file_num(s->options, 2);
        rocksdb_writeoptions_set_sync(s->write_synced, 1);

        names[0] = "default";
        for (int i = 0; i <= STORE_FAMILY_COUNT; i++) {
                s->family_options[i] = rocksdb_options_create();
                if (!s->family_options[i]) {
                        r = -ENOMEM;
                        goto fail;
                }
                rocksdb_options_set_write_buffer_size(s->family_options[i],
                                                      STORE_WRITE_BUFFER_BYTES);
                if (i > 0)
                        names[i] = family_names[i - 1];
                family_options[i] = s->family_options[i];
        }
        rocksdb_options_set_compression(s->family_options[STORE_BLOBS + 1],
                                        rocksdb_zstd_compression);
        rocksdb_options_set_compression(s->family_options[STORE_CANDIDATES + 1],
                                        rocksdb_zstd_compression);

        s->db = rocksdb_open_column_families(s->options, dir, STORE_FAMILY_COUNT + 1, names,
                                             family_options, s->families, &rocks_err);
        if (!s->db) {
                if (rocks_err && (strstr(rocks_err, "lock") || strstr(rocks_err, "Lock"))) {
                        char owner[300];
                        describe_owner(dir, owner, sizeof(owner));
                        snprintf(err, err_size,
                                 "store %s is in use%s; only one process may open it. If "
                                 "ascendoptd is running, use the CLI through it (or stop it)",
                                 dir, owner);
                        rocksdb_free(rocks_err);
                        r = -EBUSY;
                } else {
                        r = rocks_error(rocks_err, "cannot open", dir, err, err_size);
                }
                goto fail;
        }
        r = check_schema(s, err, err_size);
        if (r < 0)
                goto fail;
        write_owner(dir);
        *ret_store = s;
        return 0;
fail:
        store_close(s);
        return r;
}

struct store *store_close(struct store *s)
{
        char path[PATH_MAX];

        if (!s)
                return NULL;
        if (s->db) {
                for (int i = 0; i <= STORE_FAMILY_COUNT; i++)
                        if (s->families[i])
                                rocksdb_column_family_handle_destroy(s->families[i]);
                rocksdb_close(s->db);
                if (format_path(path, sizeof(path), "%s/%s", s->dir, OWNER_FILE) == 0)
                        unlink(path);
        }
        for (int i = 0; i <= STORE_FAMILY_COUNT; i++)
                if (s->family_options[i])
                        rocksdb_options_destroy(s->family_options[i]);
        if (s->options)
                rocksdb_options_destroy(s->options);
        if (s->read)
                rocksdb_readoptions_destroy(s->read);
        if (s->write_synced)
                rocksdb_writeoptions_destroy(s->write_synced);
        free(s->dir);
        free(s);
        return NULL;
}

int store_schema_version(struct store *s)
{
        return s->schema_version;
}

int store_get(struct store *s, enum store_family family, const void *key, size_t key_len,
              void **ret_value, size_t *ret_len)
{
        char *rocks_err = NULL;
        size_t len = 0;
        char *value;
        void *copy;

        if (family >= STORE_FAMILY_COUNT)
                return -EINVAL;
        value = rocksdb_get_cf(s->db, s->read, handle(s, family), key, key_len, &len, &rocks_err);
        if (rocks_err)
                return rocks_error(rocks_err, "read failed", s->dir, NULL, 0);
        if (!value)
                return -ENOENT;
        /* hand out memory the caller can free() */
        copy = malloc(len + 1);
        if (!copy) {
                rocksdb_free(value);
                return -ENOMEM;
        }
        memcpy(copy, value, len);
        ((char *)copy)[len] = '\0';
        rocksdb_free(value);
        *ret_value = copy;
        *ret_len = len;
        return 0;
}

int store_get_json(struct store *s, enum store_family family, const char *key, json_t **ret)
{
        void *value = NULL;
        size_t len = 0;
        json_t *doc;
        int r;

        r = store_get(s, family, key, strlen(key), &value, &len);
        if (r < 0)
                return r;
        doc = json_loadb(value, len, 0, NULL);
        free(value);
        if (!doc)
                return -EBADMSG;
        *ret = doc;
        return 0;
}

struct store_batch *store_batch_new(struct store *s)
{
        struct store_batch *b = calloc(1, sizeof(*b));

        if (!b)
                return NULL;
        b->store = s;
        b->batch = rocksdb_writebatch_create();
        if (!b->batch) {
                free(b);
                return NULL;
        }
        return b;
}

struct store *store_batch_owner(const struct store_batch *batch)
{
        return batch->store;
}

struct store_batch *store_batch_free(struct store_batch *b)
{
        if (!b)
                return NULL;
        rocksdb_writebatch_destroy(b->batch);
        free(b);
        return NULL;
}

void store_batch_put(struct store_batch *b, enum store_family family, const void *key,
                     size_t key_len, const void *value, size_t value_len)
{
        rocksdb_writebatch_put_cf(b->batch, handle(b->store, family), key, key_len, value,
                                  value_len);
}

int store_batch_put_json(struct store_batch *b, enum store_family family, const char *key,
                         const json_t *value)
{
        char *text = json_dumps(value, JSON_COMPACT | JSON_SORT_KEYS);

        if (!text)
                return -ENOMEM;
        store_batch_put(b, family, key, strlen(key), text, strlen(text));
        free(text);
        return 0;
}

void store_batch_delete(struct store_batch *b, enum store_family family, const void *key,
                        size_t key_len)
{
        rocksdb_writebatch_delete_cf(b->batch, handle(b->store, family), key, key_len);
}

size_t store_batch_count(const struct store_batch *b)
{
        return (size_t)rocksdb_writebatch_count(b->batch);
}

int store_batch_commit(struct store_batch *b)
{
        struct store *s = b->store;
        char *rocks_err = NULL;
        size_t size = 0;
        int r;

        /* The batch goes to the log now and into a table at the next flush. */
        rocksdb_writebatch_data(b->batch, &size);
        r = check_space(s->dir, "write", 2 * (uint64_t)size, last_error, sizeof(last_error));
        if (r < 0)
                return r;
        rocksdb_write(s->db, s->write_synced, b->batch, &rocks_err);
        if (rocks_err)
                return rocks_error(rocks_err, "write failed", s->dir, last_error,
                                   sizeof(last_error));
        rocksdb_writebatch_clear(b->batch);
        return 0;
}

const char *store_last_error(const struct store *s)
{
        (void)s;
        return last_error[0] ? last_error : "no error";
}

int store_scan(struct store *s, enum store_family family, const void *prefix, size_t prefix_len,
               store_visit_fn visit, void *userdata)
{
        rocksdb_iterator_t *it;
        char *rocks_err = NULL;
        int r = 0;

        if (family >= STORE_FAMILY_COUNT)
                return -EINVAL;
        it = rocksdb_create_iterator_cf(s->db, s->read, handle(s, family));
        if (!it)
                return -ENOMEM;
        if (prefix_len)
                rocksdb_iter_seek(it, prefix, prefix_len);
        else
                rocksdb_iter_seek_to_first(it);
        for (; rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
                size_t key_len, value_len;
                const char *key = rocksdb_iter_key(it, &key_len);
                const char *value = rocksdb_iter_value(it, &value_len);
                if (key_len < prefix_len || memcmp(key, prefix, prefix_len) != 0)
                        break;
                r = visit(key, key_len, value, value_len, userdata);
                if (r != 0)
                        break;
        }
        rocksdb_iter_get_error(it, &rocks_err);
        rocksdb_iter_destroy(it);
        if (rocks_err)
                return rocks_error(rocks_err, "scan failed", s->dir, NULL, 0);
        return r < 0 ? r : 0;
}

void store_blob_put(struct store_batch *b, const void *data, size_t len,
                    char ret_hex[SHA256_HEX_SIZE])
{
        struct sha256 sha;
        uint8_t digest[SHA256_DIGEST_SIZE];

        sha256_init(&sha);
        sha256_update(&sha, data, len);
        sha256_final(&sha, digest);
        sha256_hex(digest, ret_hex);
        /* the same key always holds the same bytes, so rewriting is harmless */
        store_batch_put(b, STORE_BLOBS, ret_hex, SHA256_HEX_SIZE - 1, data, len);
}

int store_blob_get(struct store *s, const char *hex, void **ret_data, size_t *ret_len)
{
        if (strlen(hex) != SHA256_HEX_SIZE - 1)
                return -EINVAL;
        return store_get(s, STORE_BLOBS, hex, SHA256_HEX_SIZE - 1, ret_data, ret_len);
}

int store_candidate_get(struct store *s, const char *identity, json_t **ret_result)
{
        return store_get_json(s, STORE_CANDIDATES, identity, ret_result);
}

int store_candidate_put(struct store_batch *b, const char *identity, const json_t *result)
{
        const char *status = json_string_value(json_object_get(result, "status"));

        if (!status || strcmp(status, "infra_error") == 0)
                return -EINVAL;
        return store_batch_put_json(b, STORE_CANDIDATES, identity, result);
}

bool store_is_digest(const char *s)
{
        size_t n = 0;

        for (; s && s[n]; n++)
                if (!isxdigit((unsigned char)s[n]) || isupper((unsigned char)s[n]))
                        return false;
        return n == SHA256_HEX_SIZE - 1;
}

int store_launch_put(struct store_batch *b, const char *identity, const json_t *result)
{
        const json_t *launch = json_object_get(result, "launch");
        const char *key = json_string_value(json_object_get(launch, "key"));
        const char *base = json_string_value(json_object_get(launch, "base"));
        char launch_key[sizeof(STORE_LAUNCH_PREFIX) + SHA256_HEX_SIZE];
        char base_key[sizeof(STORE_LAUNCH_BASE_PREFIX) + SHA256_HEX_SIZE];
        json_t *value;
        int r;

        if (!store_is_digest(key) || !store_is_digest(base))
                return 0;
        snprintf(launch_key, sizeof(launch_key), STORE_LAUNCH_PREFIX "%s", key);
        snprintf(base_key, sizeof(base_key), STORE_LAUNCH_BASE_PREFIX "%s", base);
        value = json_pack("{s:s}", "identity", identity);
        if (!value)
                return -ENOMEM;
        /* the base's marker holds the same: any value says the base was measured */
        r = store_batch_put_json(b, STORE_CANDIDATES, launch_key, value);
        if (r == 0)
                r = store_batch_put_json(b, STORE_CANDIDATES, base_key, value);
        json_decref(value);
        return r;
}

int store_compact(struct store *s)
{
        uint64_t size = 0;
        int r;

        /* Compaction writes the new tables before it deletes the old. */
        if (store_size_bytes(s, &size) < 0)
                size = 0;
        r = check_space(s->dir, "compact", size, last_error, sizeof(last_error));
        if (r < 0)
                return r;
        for (int i = 0; i <= STORE_FAMILY_COUNT; i++)
                rocksdb_compact_range_cf(s->db, s->families[i], NULL, 0, NULL, 0);
        return 0;
}

int store_size_bytes(struct store *s, uint64_t *ret_bytes)
{
        uint64_t total = 0;

        for (int i = 0; i <= STORE_FAMILY_COUNT; i++) {
                char *v = rocksdb_property_value_cf(s->db, s->families[i],
                                                    "rocksdb.total-sst-files-size");
                char *w = rocksdb_property_value_cf(s->db, s->families[i],
                                                    "rocksdb.cur-size-all-mem-tables");
                if (v)
                        total += strtoull(v, NULL, 10);
                if (w)
                        total += strtoull(w, NULL, 10);
                rocksdb_free(v);
                rocksdb_free(w);
        }
        *ret_bytes = total;
        return 0;
}
