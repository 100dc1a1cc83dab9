/* SPDX-License-Identifier: MIT */
/*
 * Queue: optimization episodes persisted in the store, scheduled onto device
 * slots one episode per device, with priorities, supersession and retries.
 */
#ifndef ASCENDOPT_QUEUE_H
#define ASCENDOPT_QUEUE_H

/* No interface yet: README.md's status table lists this component as missing. */

#endif
