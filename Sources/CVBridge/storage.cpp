// cv::FileStorage as a key-value store, so calibration files are written and read exactly as OpenCV does.
#include <cstdlib>
#include <cstring>
#include <opencv2/core.hpp>
#include "bridge_error.hpp"

struct cvb_storage {
    cv::FileStorage storage;
    std::string prefix; // put before every key written or read (a rig's cameras: camera_1_)
};

extern "C" int32_t cvb_storage_set_prefix(cvb_storage *s, const char *prefix) {
    if (s == nullptr || prefix == nullptr) return cvb::fail(BRIDGE_ERR_ARGUMENT, "FileStorage: bad argument");
    s->prefix = prefix;
    return BRIDGE_OK;
}

extern "C" int32_t cvb_storage_open_write(cvb_storage_format format, cvb_storage **out) {
    return cvb::guarded("FileStorage", [&]() -> int32_t {
        if (out == nullptr || (format != CVB_STORAGE_YAML && format != CVB_STORAGE_XML)) return cvb::fail(BRIDGE_ERR_ARGUMENT, "FileStorage: bad argument");
        auto s = new cvb_storage();
        const char *name = format == CVB_STORAGE_YAML ? ".yaml" : ".xml";
        if (!s->storage.open(name, cv::FileStorage::WRITE | cv::FileStorage::MEMORY)) {
            delete s;
            return cvb::fail(BRIDGE_ERR_IO, "cannot open FileStorage for writing");
        }
        *out = s;
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_storage_open_read(const char *text, cvb_storage **out) {
    return cvb::guarded("FileStorage", [&]() -> int32_t {
        if (text == nullptr || out == nullptr) return cvb::fail(BRIDGE_ERR_ARGUMENT, "FileStorage: bad argument");
        *out = nullptr;
        auto s = new cvb_storage();
        bool opened = false;
        try {
            opened = s->storage.open(text, cv::FileStorage::READ | cv::FileStorage::MEMORY);
        } catch (...) {
            delete s;
            throw;
        }
        if (!opened) {
            delete s;
            return cvb::fail(BRIDGE_ERR_IO, "not an OpenCV FileStorage text");
        }
        *out = s;
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_storage_write_int(cvb_storage *s, const char *key, int32_t value) {
    return cvb::guarded("FileStorage write", [&]() -> int32_t { s->storage << (s->prefix + key) << int(value); return BRIDGE_OK; });
}

extern "C" int32_t cvb_storage_write_real(cvb_storage *s, const char *key, double value) {
    return cvb::guarded("FileStorage write", [&]() -> int32_t { s->storage << (s->prefix + key) << value; return BRIDGE_OK; });
}

extern "C" int32_t cvb_storage_write_string(cvb_storage *s, const char *key, const char *value) {
    // cv::write, not operator<<: the latter takes a string starting with { [ } ] as the start or end of a
    // structure, and "}m" as a units string crashed OpenCV's writer (found by `make fuzz`).
    return cvb::guarded("FileStorage write", [&]() -> int32_t { cv::write(s->storage, s->prefix + key, std::string(value)); return BRIDGE_OK; });
}

extern "C" int32_t cvb_storage_write_matrix(cvb_storage *s, const char *key, const double *values, int32_t rows,
                                            int32_t cols) {
    return cvb::guarded("FileStorage write", [&]() -> int32_t {
        if (values == nullptr || rows < 1 || cols < 1) return cvb::fail(BRIDGE_ERR_ARGUMENT, "FileStorage: empty matrix");
        s->storage << (s->prefix + key) << cv::Mat(rows, cols, CV_64F, const_cast<double *>(values));
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_storage_write_comment(cvb_storage *s, const char *comment) {
    return cvb::guarded("FileStorage write", [&]() -> int32_t { s->storage.writeComment(comment); return BRIDGE_OK; });
}

extern "C" int32_t cvb_storage_finish(cvb_storage *s, cvb_image *out) {
    return cvb::guarded("FileStorage write", [&]() -> int32_t {
        const std::string text = s->storage.releaseAndGetString();
        auto *data = static_cast<uint8_t *>(std::malloc(text.size() + 1));
        if (data == nullptr) return cvb::fail(BRIDGE_ERR_IO, "FileStorage: out of memory");
        std::memcpy(data, text.data(), text.size());
        *out = cvb_image{int32_t(text.size()), 1, int32_t(text.size()), 1, data};
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_storage_read_real(cvb_storage *s, const char *key, double *value) {
    return cvb::guarded("FileStorage read", [&]() -> int32_t {
        cv::FileNode node = s->storage[s->prefix + key];
        if (node.empty() || node.isNone()) return 0;
        if (!node.isReal() && !node.isInt()) return cvb::fail(BRIDGE_ERR_IO, std::string("'") + key + "' is not a number");
        *value = node.real();
        return 1;
    });
}

extern "C" int32_t cvb_storage_read_string(cvb_storage *s, const char *key, cvb_image *out) {
    return cvb::guarded("FileStorage read", [&]() -> int32_t {
        cv::FileNode node = s->storage[s->prefix + key];
        if (node.empty() || node.isNone()) return 0;
        if (!node.isString()) return cvb::fail(BRIDGE_ERR_IO, std::string("'") + key + "' is not text");
        const std::string text = node.string();
        auto *data = static_cast<uint8_t *>(std::malloc(text.size() + 1));
        if (data == nullptr) return cvb::fail(BRIDGE_ERR_IO, "FileStorage: out of memory");
        std::memcpy(data, text.data(), text.size());
        *out = cvb_image{int32_t(text.size()), 1, int32_t(text.size()), 1, data};
        return 1;
    });
}

extern "C" int32_t cvb_storage_read_matrix(cvb_storage *s, const char *key, double *values, int32_t capacity,
                                           int32_t *rows, int32_t *cols) {
    return cvb::guarded("FileStorage read", [&]() -> int32_t {
        cv::FileNode node = s->storage[s->prefix + key];
        if (node.empty() || node.isNone()) return 0;
        cv::Mat m;
        if (node.isSeq()) {
            std::vector<double> v;
            for (const auto &item : node) {
                if (!item.isReal() && !item.isInt()) return cvb::fail(BRIDGE_ERR_IO, std::string("'") + key + "' holds a non-number");
                v.push_back(item.real());
            }
            m = cv::Mat(1, int(v.size()), CV_64F, v.data()).clone();
        } else {
            // Check the header before OpenCV sizes the matrix from it: a malformed `rows` (text, or huge)
            // would otherwise have it allocate gigabytes before noticing the data is short.
            const cv::FileNode r = node["rows"], c = node["cols"];
            if (!node.isMap() || !r.isInt() || !c.isInt())
                return cvb::fail(BRIDGE_ERR_IO, std::string("'") + key + "' is not a matrix (rows and cols must be whole numbers)");
            const int64_t count = int64_t(int(r)) * int64_t(int(c));
            if (int(r) < 1 || int(c) < 1) return cvb::fail(BRIDGE_ERR_IO, std::string("'") + key + "' is not a matrix");
            if (count > capacity) return cvb::fail(BRIDGE_ERR_IO, std::string("'") + key + "' is too large");
            node >> m;
        }
        if (m.empty() || m.channels() != 1) return cvb::fail(BRIDGE_ERR_IO, std::string("'") + key + "' is not a matrix");
        if (int32_t(m.total()) > capacity) return cvb::fail(BRIDGE_ERR_IO, std::string("'") + key + "' is too large");
        m.convertTo(m, CV_64F);
        for (int i = 0; i < int(m.total()); ++i) values[i] = m.at<double>(i / m.cols, i % m.cols);
        *rows = m.rows;
        *cols = m.cols;
        return 1;
    });
}

extern "C" void cvb_storage_close(cvb_storage *s) { delete s; }
