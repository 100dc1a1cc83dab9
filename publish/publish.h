/* SPDX-License-Identifier: MIT */
/*
 * Publishing: sibling branches built in memory with libgit2 and updated by
 * compare-and-swap, plus the Markdown, JSON and SVG reports they carry.
 */
#ifndef ASCENDOPT_PUBLISH_H
#define ASCENDOPT_PUBLISH_H

/* No interface yet: README.md's status table lists this component as missing. */

#endif
