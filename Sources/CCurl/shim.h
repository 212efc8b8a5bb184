#ifndef LARDER_CCURL_SHIM_H
#define LARDER_CCURL_SHIM_H

#include <curl/curl.h>

// Swift cannot call C variadic functions, so each argument type that the
// upstream client passes to curl_easy_setopt, curl_easy_getinfo and
// curl_multi_setopt and curl_share_setopt gets a typed, non-variadic wrapper here (only the ones
// LarderUpstream uses).

static inline CURLcode larder_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode larder_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode larder_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode larder_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION (same signature).
static inline CURLcode larder_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/// For CURLOPT_READFUNCTION.
static inline CURLcode larder_curl_easy_setopt_read_callback(CURL *handle, CURLoption option, curl_read_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/// For CURLOPT_SEEKFUNCTION.
static inline CURLcode larder_curl_easy_setopt_seek_callback(CURL *handle, CURLoption option, curl_seek_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/// For CURLOPT_PREREQFUNCTION (curl 7.80+): called once a connection is made or picked from the
/// pool, before the request is sent on it.
static inline CURLcode larder_curl_easy_setopt_prereq_callback(CURL *handle, curl_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}

static inline CURLcode larder_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode larder_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode larder_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLSHcode larder_curl_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}

#endif
