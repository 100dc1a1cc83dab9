/* SPDX-License-Identifier: MIT */
/*
 * Store: the RocksDB column families that own all durable state (queue,
 * episodes, candidates, blobs, experience), written in synced batches.
 */
#ifndef ASCENDOPT_STORE_H
#define ASCENDOPT_STORE_H

/* No interface yet: README.md's status table lists this component as missing. */

#endif
