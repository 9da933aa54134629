// Image files in and out through OpenCV's imgcodecs, and colour conversion.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <mutex>
#include <unistd.h>
#include <vector>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include "bridge_error.hpp"

namespace {
// Width and height from the first bytes of a PNG, JPEG or BMP file; false for other formats or a
// header too short to tell (the decoder then judges).
bool header_size(const uint8_t *b, size_t n, long long &width, long long &height) {
    auto be32 = [&](size_t i) { return (long long)b[i] << 24 | (long long)b[i + 1] << 16 | b[i + 2] << 8 | b[i + 3]; };
    if (n >= 24 && std::memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0 && std::memcmp(b + 12, "IHDR", 4) == 0) {
        width = be32(16);
        height = be32(20);
        return true;
    }
    if (n >= 26 && b[0] == 'B' && b[1] == 'M') {
        auto le32 = [&](size_t i) { return (int32_t)(uint32_t(b[i]) | uint32_t(b[i + 1]) << 8 | uint32_t(b[i + 2]) << 16 | uint32_t(b[i + 3]) << 24); };
        width = std::llabs(le32(18));
        height = std::llabs(le32(22));
        return true;
    }
    if (n >= 4 && b[0] == 0xFF && b[1] == 0xD8) {
        // Walk the JPEG segments to the first start-of-frame (SOF0..SOF15 but DHT, JPG, DAC).
        size_t i = 2;
        while (i + 9 < n) {
            if (b[i] != 0xFF) return false;
            const uint8_t marker = b[i + 1];
            if (marker == 0xFF) { ++i; continue; }
            const size_t length = size_t(b[i + 2]) << 8 | b[i + 3];
            if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
                height = (long long)b[i + 5] << 8 | b[i + 6];
                width = (long long)b[i + 7] << 8 | b[i + 8];
                return true;
            }
            i += 2 + length;
        }
    }
    return false;
}

int32_t refuse_if_too_large(const uint8_t *bytes, size_t count) {
    long long width = 0, height = 0;
    if (header_size(bytes, count, width, height) && width * height > CVB_MAX_IMAGE_PIXELS)
        return cvb::fail(CVB_ERR_TOO_LARGE, "its header claims " + std::to_string(width) + "x" + std::to_string(height) +
                                                " pixels, more than the " + std::to_string(CVB_MAX_IMAGE_PIXELS / 1000000) +
                                                " megapixels MarkerKit reads");
    return CVB_OK;
}

// libpng and libjpeg print their own complaints to stdio's stderr before OpenCV reports the failure; a
// user should see one line, ours. On the first decode `stderr` becomes, for the rest of the process, a
// stream that drops what a thread writes while it decodes and hands everything else straight to file
// descriptor 2 (unbuffered, as stderr is). Decodes on many threads run at once, and no other thread's
// message is lost (pointing descriptor 2 at /dev/null around each decode silenced every thread and
// needed a lock that let one decode run at a time).
thread_local bool decoding_quietly = false;

ssize_t write_unless_decoding(void *, const char *bytes, size_t count) {
    if (decoding_quietly) return ssize_t(count);
    size_t done = 0;
    while (done < count) {
        const ssize_t n = write(2, bytes + done, count - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return done > 0 ? ssize_t(done) : -1;
        done += size_t(n);
    }
    return ssize_t(count);
}

std::once_flag quiet_stderr_installed;

template <typename F> cv::Mat quietly(F decode) {
    std::call_once(quiet_stderr_installed, [] {
        cookie_io_functions_t io{nullptr, write_unless_decoding, nullptr, nullptr};
        if (FILE *quiet = fopencookie(nullptr, "w", io)) {
            setvbuf(quiet, nullptr, _IONBF, 0);
            std::fflush(stderr);
            stderr = quiet;
        }
    });
    decoding_quietly = true;
    cv::Mat image;
    try {
        image = decode();
    } catch (...) {
        image = cv::Mat();
    }
    decoding_quietly = false;
    return image;
}

// What decoding keeps per thread: a file's bytes (the same memory while sizes repeat) and the last
// decoded picture. The picture is decoded into new memory each time: imdecode's reusable destination
// keeps the previous picture when a buffer holds no image it can decode, which a caller could not tell
// from success; the codecs (libpng, libjpeg) allocate their own state per picture anyway.
struct DecodeWorkspace {
    std::vector<uint8_t> file;
    cv::Mat image;
};
thread_local DecodeWorkspace decoding;

// Decodes `count` bytes into the thread's kept picture; `out` views it (valid until the thread's next
// decode). Too large a header is refused before decoding; an undecodable picture gives CVB_ERR_IO (the
// caller says what it was).
int32_t decode_kept(const uint8_t *bytes, size_t count, int32_t channels, cvb_image *out) {
    if (int32_t refused = refuse_if_too_large(bytes, count); refused < 0) return refused;
    const cv::Mat encoded(1, int(count), CV_8UC1, const_cast<uint8_t *>(bytes));
    const int flags = channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR;
    decoding.image = quietly([&] { return cv::imdecode(encoded, flags); });
    const cv::Mat &image = decoding.image;
    if (image.empty()) return CVB_ERR_IO;
    *out = cvb_image{image.cols, image.rows, int32_t(image.step[0]), image.channels(), image.data};
    return CVB_OK;
}
}

extern "C" int32_t cvb_image_read(const char *path, int32_t channels, cvb_image *out) {
    return cvb::guarded("read image", [&]() -> int32_t {
        if (path == nullptr || out == nullptr || (channels != 1 && channels != 3))
            return cvb::fail(CVB_ERR_ARGUMENT, "read image: bad argument");
        *out = cvb_image{0, 0, 0, 0, nullptr};
        // The whole file into the thread's kept buffer (read(2): no stdio buffer to allocate).
        const int file = open(path, O_RDONLY | O_CLOEXEC);
        const auto failure = [&] { return cvb::fail(CVB_ERR_IO, std::string("cannot read or decode image '") + path + "'"); };
        if (file < 0) return failure();
        struct stat info {};
        bool read_all = fstat(file, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0;
        if (read_all) {
            decoding.file.resize(size_t(info.st_size));
            size_t got = 0;
            while (read_all && got < decoding.file.size()) {
                const ssize_t n = read(file, decoding.file.data() + got, decoding.file.size() - got);
                if (n > 0) got += size_t(n);
                else if (n == 0 || errno != EINTR) read_all = false;
            }
        }
        close(file);
        if (!read_all) return failure();
        const int32_t status = decode_kept(decoding.file.data(), decoding.file.size(), channels, out);
        return status == CVB_ERR_IO ? failure() : status;
    });
}

extern "C" void cvb_decoded_release(void) { decoding.image.release(); }

extern "C" int32_t cvb_image_encode(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                                    int32_t channels, const char *extension, cvb_image *out) {
    return cvb::guarded("encode image", [&]() -> int32_t {
        if (!cvb::valid_image(pixels, width, height, stride, channels) || extension == nullptr || out == nullptr)
            return cvb::fail(CVB_ERR_ARGUMENT, "encode image: bad argument");
        std::vector<uint8_t> bytes;
        if (!cv::imencode(extension, cvb::view(pixels, width, height, stride, channels), bytes))
            return cvb::fail(CVB_ERR_IO, std::string("cannot encode image as ") + extension);
        auto *data = static_cast<uint8_t *>(std::malloc(bytes.size() + 1));
        if (data == nullptr) return cvb::fail(CVB_ERR_IO, "encode image: out of memory");
        std::memcpy(data, bytes.data(), bytes.size());
        *out = cvb_image{static_cast<int32_t>(bytes.size()), 1, static_cast<int32_t>(bytes.size()), 1, data};
        return CVB_OK;
    });
}

extern "C" int32_t cvb_to_gray(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                               int32_t channels, uint8_t *gray) {
    return cvb::guarded("to gray", [&]() -> int32_t {
        if (!cvb::valid_image(pixels, width, height, stride, channels) || gray == nullptr || channels == 1)
            return cvb::fail(CVB_ERR_ARGUMENT, "to gray: bad argument");
        cv::Mat out(height, width, CV_8UC1, gray);
        cv::cvtColor(cvb::view(pixels, width, height, stride, channels), out,
                     channels == 3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
        return CVB_OK;
    });
}

extern "C" void cvb_image_release(cvb_image *image) {
    if (image == nullptr) return;
    std::free(image->data);
    *image = cvb_image{0, 0, 0, 0, nullptr};
}

extern "C" int32_t cvb_jpeg_roundtrip(uint8_t *gray, int32_t width, int32_t height, int32_t stride, int32_t quality) {
    return cvb::guarded("jpeg", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || quality < 1 || quality > 100)
            return cvb::fail(CVB_ERR_ARGUMENT, "jpeg: bad argument");
        cv::Mat image = cvb::gray_view(gray, width, height, stride);
        std::vector<uint8_t> bytes;
        cv::imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_QUALITY, quality});
        cv::Mat decoded = cv::imdecode(bytes, cv::IMREAD_GRAYSCALE);
        if (decoded.size() != image.size()) return cvb::fail(CVB_ERR_IO, "jpeg: round trip changed the size");
        decoded.copyTo(image);
        return CVB_OK;
    });
}

extern "C" int32_t cvb_image_decode(const uint8_t *bytes, int32_t count, int32_t channels, cvb_image *out) {
    return cvb::guarded("decode image", [&]() -> int32_t {
        if (bytes == nullptr || count <= 0 || out == nullptr || (channels != 1 && channels != 3))
            return cvb::fail(CVB_ERR_ARGUMENT, "decode image: bad argument");
        *out = cvb_image{0, 0, 0, 0, nullptr};
        const int32_t status = decode_kept(bytes, size_t(count), channels, out);
        return status == CVB_ERR_IO ? cvb::fail(CVB_ERR_IO, "not a decodable image") : status;
    });
}

extern "C" int32_t cvb_yuyv_to_bgr(const uint8_t *yuyv, int32_t width, int32_t height, int32_t stride, uint8_t *bgr) {
    return cvb::guarded("YUYV to BGR", [&]() -> int32_t {
        if (yuyv == nullptr || bgr == nullptr || width <= 0 || width % 2 != 0 || height <= 0 || stride < 2 * width)
            return cvb::fail(CVB_ERR_ARGUMENT, "YUYV to BGR: bad argument");
        cv::Mat source(height, width, CV_8UC2, const_cast<uint8_t *>(yuyv), size_t(stride));
        cv::Mat target(height, width, CV_8UC3, bgr);
        cv::cvtColor(source, target, cv::COLOR_YUV2BGR_YUYV);
        return CVB_OK;
    });
}

extern "C" double cvb_sharpness(const uint8_t *gray, int32_t width, int32_t height, int32_t stride) {
    try {
        if (!cvb::valid_gray(gray, width, height, stride)) return -1;
        cv::Mat laplacian;
        cv::Laplacian(cvb::gray_view(gray, width, height, stride), laplacian, CV_64F);
        cv::Scalar mean, deviation;
        cv::meanStdDev(laplacian, mean, deviation);
        return deviation[0] * deviation[0];
    } catch (...) {
        return -1;
    }
}
