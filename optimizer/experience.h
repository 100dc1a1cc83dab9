/* SPDX-License-Identifier: MIT */
/*
 * The experience bank: entries from rewinding expert kernels, retrieved
 * by bottleneck signature for Stage II, with their credit.
 * Part of optimizer/optimizer.h, which includes every one of these.
 */
#ifndef ASCENDOPT_OPTIMIZER_EXPERIENCE_H
#define ASCENDOPT_OPTIMIZER_EXPERIENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

struct event_base;
struct store;
struct store_batch;

/* ------------------------------------------------------------ experience */

/*
 * The experience bank: entries of <title, description, bottleneck, diff>
 * with the motif that produced them, kept in the store's experience family
 * under the SHA-256 of motif and diff (the same rewrite found twice is one
 * entry).  Retrieval ranks entries for a bottleneck signature with BM25
 * over the entry's signature tokens, title and description.
 */
#define EXPERIENCE_MAX_ENTRIES 100000

/*
 * Adds or updates an entry in batch.  entry is an object with at least
 * "title", "description", "bottleneck" and "diff" (strings); "motif",
 * "operator", "origin" ("rewind" or "episode"), "slowdown" and an
 * "embedding" array are kept when present.  *ret_id (may be NULL) gets its
 * id.  -EINVAL when a required field is missing.
 */
int experience_put(struct store_batch *batch, const json_t *entry, char ret_id[SHA256_HEX_SIZE]);

/* The entry with that id; -ENOENT when the bank has none. */
int experience_get(struct store *store, const char *id, json_t **ret_entry);

/* An entry's id: the SHA-256 of its motif and diff (hex). */
void experience_id(const json_t *entry, char ret_id[SHA256_HEX_SIZE]);

/* ------------------------------------------------------------ as JSON lines (docs/fleet.md) */

/*
 * What a run added to the bank, from its entries before and after (both
 * as experience_list() gives them): every entry that is new, and every
 * known one whose uses or wins grew, with "uses" and "wins" the increase.
 * A new array of entries without "id", "score" or "embedding".
 */
int experience_delta(const json_t *before, const json_t *after, json_t **ret_lines);

/*
 * Adds the lines of a file of such entries to the bank in batch: a new
 * entry as it is, a known one (the same motif and diff) with its uses and
 * wins added to the bank's and its own texts kept.  Adding is not
 * idempotent: the caller commits the batch with a mark that the file was
 * merged.  Every line is checked first (required texts, counts from 0 to
 * 1e9); on a bad one it fails with -EINVAL and err names path:line, and
 * the caller drops the batch.  *ret_new and *ret_updated count entries.
 */
int experience_merge_lines(struct store_batch *batch, const char *path, size_t *ret_new,
                           size_t *ret_updated, char *err, size_t err_size);

/* A bank file's document ({"format", "version", "entries"}), taking a reference to entries. */
json_t *experience_export_doc(json_t *entries);

/* Every entry, in id order (a new array); -errno on a store error. */
int experience_list(struct store *store, json_t **ret_entries);

/*
 * The k entries whose text best matches query (usually a bottleneck
 * signature), best first, each with a "score"; ties keep id order.
 * Entries with no overlapping term are left out.
 */
int experience_retrieve(struct store *store, const char *query, size_t k, json_t **ret_entries);

/*
 * Adds every entry of a bank file ({"entries": [...]}, as 'ascendopt
 * experience export' writes) in one batch: all or nothing.  *ret_added
 * (may be NULL) gets the count.  -EINVAL for a malformed file or entry,
 * -E2BIG beyond EXPERIENCE_MAX_ENTRIES, -errno when it cannot be read;
 * the message in err names the file and the entry.
 */
int experience_import_file(struct store *store, const char *path, size_t *ret_added, char *err,
                           size_t err_size);

/*
 * Seeds an empty bank: from $ASCENDOPT_SEED_BANK (set but empty: never),
 * else etc/ascendopt/seed-bank.json of the source tree the program was
 * built in, else the installed copy.  A bank with entries is left as it
 * is.  ret says what was done.  -errno with err set when the bank cannot
 * be read or the file cannot be imported.
 */
struct experience_seeding {
        bool was_empty;
        const char *path; /* the seed bank read; NULL: none found (or not needed) */
        size_t added;
};
int experience_seed_if_empty(struct store *store, struct experience_seeding *ret, char *err,
                             size_t err_size);

/* The text an entry is embedded from: its title, description and bottleneck (new string). */
char *experience_embedding_text(const json_t *entry);

/*
 * Stores n embeddings (dim floats each, row i for entry ids[i]) made by
 * model, in one synced batch.  -ENOENT when an id is not in the bank.
 */
int experience_set_embeddings(struct store *store, const char *const *ids, const float *vectors,
                              size_t n, size_t dim, const char *model);

/*
 * Dense retrieval: the k entries whose embedding by model is most similar
 * to query (dim floats) by cosine, best first, each with that "score" and
 * without its "embedding".  Entries not embedded by model are left out.
 */
int experience_retrieve_dense(struct store *store, const float *query, size_t dim,
                              const char *model, size_t k, json_t **ret_entries);

/* Counts a use of an entry and, when won, a win (a measured improvement). */
int experience_credit(struct store *store, const char *id, bool won);

/*
 * A unified diff from a to b, with three lines of context, headed
 * "--- a_name" and "+++ b_name"; "" when the texts are equal.  A new string.
 */
char *text_unified_diff(const char *a_name, const char *a, const char *b_name, const char *b);

#endif
