#ifndef LARDER_CCURL_SHIM_H
#define LARDER_CCURL_SHIM_H

#include <curl/curl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

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

/// For CURLOPT_OPENSOCKETFUNCTION: called with each address curl is about to connect to.
static inline CURLcode larder_curl_easy_setopt_opensocket_callback(CURL *handle, curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}

/// The address curl is about to connect to, as 4 or 16 bytes in `bytes` and its port; 0 for
/// another family (then `bytes` and `port` are untouched).
static inline int larder_curl_sockaddr_address(const struct curl_sockaddr *address, unsigned char bytes[16], int *port) {
    if (address->family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&address->addr;
        memcpy(bytes, &in->sin_addr, 4);
        *port = ntohs(in->sin_port);
        return 4;
    }
    if (address->family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&address->addr;
        memcpy(bytes, &in6->sin6_addr, 16);
        *port = ntohs(in6->sin6_port);
        return 16;
    }
    return 0;
}

/// The socket curl would open itself for `address` (close-on-exec where the system has it).
static inline curl_socket_t larder_curl_open_socket(const struct curl_sockaddr *address) {
#ifdef SOCK_CLOEXEC
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
#else
    return socket(address->family, address->socktype, address->protocol);
#endif
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
