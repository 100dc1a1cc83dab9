/* SPDX-License-Identifier: MIT */
/*
 * Watchers: one inotify instance over the git dirs of the configured repos;
 * on a branch move they diff the recorded tip against the new one and report
 * which operator directories changed.
 */
#ifndef ASCENDOPT_WATCHERS_H
#define ASCENDOPT_WATCHERS_H

/* No interface yet: README.md's status table lists this component as missing. */

#endif
