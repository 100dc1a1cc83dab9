/* SPDX-License-Identifier: MIT */
/*
 * Optional LLM client: OpenAI-compatible chat completions and embeddings
 * over libcurl's multi-socket API on the daemon's event loop.
 */
#ifndef ASCENDOPT_LLM_H
#define ASCENDOPT_LLM_H

/* No interface yet: README.md's status table lists this component as missing. */

#endif
