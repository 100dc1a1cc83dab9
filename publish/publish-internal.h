/* SPDX-License-Identifier: MIT */
/*
 * Seams of publish/ for its tests: a hook that runs between reading the
 * sibling ref and the compare-and-swap, so that a test can change or lock
 * the ref exactly there.  Production code calls publish_commit().
 */
#ifndef ASCENDOPT_PUBLISH_INTERNAL_H
#define ASCENDOPT_PUBLISH_INTERNAL_H

#include "publish.h"

struct publish_hooks {
        /*
         * Called before every ref update attempt (attempt counts from 0),
         * after the current tip was read.  refname is borrowed.
         */
        void (*before_update)(const char *refname, unsigned attempt, void *userdata);
        void *userdata;
};

/* publish_commit() with hooks (may be NULL). */
int publish_commit_hooked(const struct publish_request *request, const struct publish_hooks *hooks,
                          struct publish_outcome *ret_outcome, char *err, size_t err_size);

#endif
