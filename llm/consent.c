/* SPDX-License-Identifier: MIT */
/*
 * What may be sent where, and with which key: the consent rule for source
 * code (a repo's llm_allowed, or a loopback endpoint allowed globally), the
 * resolution of the API key from a file or an environment variable, and
 * the mapping from the daemon's config to client options.  Error messages
 * name files and variables, never any part of a key.
 */
#include "llm/llm.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <curl/curl.h>

#include "config/config.h"

#define MAX_KEY_BYTES 4096

void llm_options_from_config(struct llm_options *options, const struct config_llm *config)
{
        memset(options, 0, sizeof(*options));
        if (!config)
                return;
        options->endpoint = config->endpoint;
        options->model = config->model;
        options->embedding_model = config->embedding_model;
        options->timeout_s = config->timeout_s;
        options->max_tokens = config->max_tokens;
        options->temperature = config->temperature;
        options->max_concurrency = config->max_concurrency;
}

char *llm_secret_free(char *secret)
{
        if (secret) {
                explicit_bzero(secret, strlen(secret));
                free(secret);
        }
        return NULL;
}

/* Trims whitespace around the key in place and checks what remains. */
static int key_check(char *key, const char *what, char *err, size_t size)
{
        size_t len = strlen(key), start = 0;

        while (len > 0 && isspace((unsigned char)key[len - 1]))
                len--;
        while (start < len && isspace((unsigned char)key[start]))
                start++;
        memmove(key, key + start, len - start);
        explicit_bzero(key + len - start, start);
        key[len - start] = '\0';
        len -= start;
        if (len == 0)
                return format_error(err, size, -EINVAL, "%s: the API key is empty", what);
        for (size_t i = 0; i < len; i++)
                if (iscntrl((unsigned char)key[i]) || key[i] == ' ')
                        return format_error(err, size, -EINVAL,
                                            "%s: the API key holds spaces or control characters; "
                                            "it must be one line with the key alone",
                                            what);
        return 0;
}

static int key_from_file(const char *path, char **ret_key, char *err, size_t size)
{
        char *buf = NULL;
        size_t len = 0;
        ssize_t n;
        int fd, r;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return format_error(err, size, -errno, "llm.api_key_file: cannot open %s: %s", path,
                                    strerror(errno));
        buf = calloc(1, MAX_KEY_BYTES + 2);
        if (!buf) {
                r = -ENOMEM;
                goto out;
        }
        while (len <= MAX_KEY_BYTES) {
                n = read(fd, buf + len, MAX_KEY_BYTES + 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = format_error(err, size, -errno, "llm.api_key_file: cannot read %s: %s",
                                         path, strerror(errno));
                        goto out;
                }
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        if (len > MAX_KEY_BYTES) {
                r = format_error(err, size, -EINVAL, "llm.api_key_file: %s is over %d bytes", path,
                                 MAX_KEY_BYTES);
                goto out;
        }
        if (memchr(buf, '\0', len)) {
                r = format_error(err, size, -EINVAL, "llm.api_key_file: %s holds a NUL byte", path);
                goto out;
        }
        r = key_check(buf, path, err, size);
        if (r < 0)
                goto out;
        *ret_key = buf;
        buf = NULL;
out:
        if (buf) {
                explicit_bzero(buf, MAX_KEY_BYTES + 2);
                free(buf);
        }
        close(fd);
        return r;
}

int llm_api_key_resolve(const struct config_llm *config, char **ret_key, char *err, size_t err_size)
{
        const char *value;
        char *key;
        int r;

        if (!config || (!config->api_key_file && !config->api_key_env)) {
                *ret_key = NULL;
                return 0;
        }
        if (config->api_key_file)
                return key_from_file(config->api_key_file, ret_key, err, err_size);

        value = getenv(config->api_key_env);
        if (!value)
                return format_error(err, err_size, -ENOENT,
                                    "llm.api_key_env: the environment variable %s is not set",
                                    config->api_key_env);
        if (strlen(value) > MAX_KEY_BYTES)
                return format_error(err, err_size, -EINVAL,
                                    "llm.api_key_env: the value of %s is over %d bytes",
                                    config->api_key_env, MAX_KEY_BYTES);
        key = strdup(value);
        if (!key)
                return -ENOMEM;
        r = key_check(key, config->api_key_env, err, err_size);
        if (r < 0) {
                llm_secret_free(key);
                return r;
        }
        *ret_key = key;
        return 0;
}

static bool host_is_loopback(const char *host)
{
        char buf[64];
        size_t len = strlen(host);
        struct in_addr v4;
        struct in6_addr v6;

        if (strcasecmp(host, "localhost") == 0 || strcasecmp(host, "localhost.") == 0)
                return true;
        /* curl gives IPv6 literals in brackets, possibly with a zone id */
        if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
                if (len - 2 >= sizeof(buf))
                        return false;
                memcpy(buf, host + 1, len - 2);
                buf[len - 2] = '\0';
                buf[strcspn(buf, "%")] = '\0';
                if (inet_pton(AF_INET6, buf, &v6) != 1)
                        return false;
                if (IN6_IS_ADDR_LOOPBACK(&v6))
                        return true;
                return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
        }
        /* inet_aton takes the same shorthand forms ("127.1") a resolver does */
        if (inet_aton(host, &v4) == 1)
                return (ntohl(v4.s_addr) >> 24) == 127;
        return false;
}

bool llm_endpoint_is_loopback(const char *endpoint)
{
        CURLU *url;
        char *host = NULL;
        bool loopback = false;

        if (!endpoint)
                return false;
        url = curl_url();
        if (!url)
                return false;
        if (curl_url_set(url, CURLUPART_URL, endpoint, 0) != CURLUE_OK)
                goto out;
        if (curl_url_get(url, CURLUPART_HOST, &host, 0) != CURLUE_OK)
                goto out;
        loopback = host_is_loopback(host);
out:
        curl_free(host);
        curl_url_cleanup(url);
        return loopback;
}

bool llm_may_send(const struct config_llm *config, const struct config_repo *repo)
{
        if (!config || !config->enabled || !config->endpoint || !repo)
                return false;
        if (repo->llm_allowed)
                return true;
        return config->allow_loopback_for_all_repos && llm_endpoint_is_loopback(config->endpoint);
}
