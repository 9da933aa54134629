// cv::FileStorage as a key-value store, so calibration files are written and read exactly as OpenCV does.
#include <cstdlib>
#include <cstring>
#include <opencv2/core.hpp>
#include "bridge_error.hpp"

struct cvb_storage {
    cv::FileStorage storage;
    std::string prefix; // put before every key written or read (a rig's cameras: camera_1_)
    bool yaml = false;
};

namespace {
// OpenCV's YAML writer puts an apostrophe in a double-quoted string as \', which is not YAML (PyYAML and
// Yams refuse the file), though OpenCV reads it back. In YAML a double-quoted string takes an apostrophe as
// it is, and so does OpenCV's reader. Every other character OpenCV writes (\" and \\; control characters
// never reach it, cvb_storage_write_string makes them spaces) is YAML already. An escaped backslash before
// an apostrophe (\\\') comes out right too: each escape is read as one unit.
std::string yaml_strings(const std::string &text) {
    std::string out;
    out.reserve(text.size());
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted && c == '\\' && i + 1 < text.size()) {
            if (text[i + 1] != '\'') out += c;
            out += text[++i];
            continue;
        }
        if (c == '"') quoted = !quoted;
        if (c == '\n') quoted = false;
        out += c;
    }
    return out;
}
} // namespace

extern "C" int32_t cvb_storage_set_prefix(cvb_storage *s, const char *prefix) {
    if (s == nullptr || prefix == nullptr) return cvb::fail(BRIDGE_ERR_ARGUMENT, "FileStorage: bad argument");
    s->prefix = prefix;
    return BRIDGE_OK;
}

extern "C" int32_t cvb_storage_open_write(cvb_storage_format format, cvb_storage **out) {
    return cvb::guarded("FileStorage", [&]() -> int32_t {
        if (out == nullptr || (format != CVB_STORAGE_YAML && format != CVB_STORAGE_XML)) return cvb::fail(BRIDGE_ERR_ARGUMENT, "FileStorage: bad argument");
        auto s = new cvb_storage();
        s->yaml = format == CVB_STORAGE_YAML;
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
    // Control characters but the tab are written as spaces: OpenCV writes them as \xNN escapes and reads
    // those back as other bytes (\x7f came back as 0x07), and none belongs in a name or a summary.
    return cvb::guarded("FileStorage write", [&]() -> int32_t {
        std::string text(value);
        for (char &c : text) {
            if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) c = ' ';
        }
        cv::write(s->storage, s->prefix + key, text);
        return BRIDGE_OK;
    });
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
        const std::string written = s->storage.releaseAndGetString();
        const std::string text = s->yaml ? yaml_strings(written) : written;
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
