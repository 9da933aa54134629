// Image files in and out through OpenCV's imgcodecs (loaded on first use: opencv_libraries.hpp), and colour
// conversion.
#include <algorithm>
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
#include "opencv_libraries.hpp"

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
        return cvb::fail(BRIDGE_ERR_TOO_LARGE, "its header claims " + std::to_string(width) + "x" + std::to_string(height) +
                                                " pixels, more than the " + std::to_string(CVB_MAX_IMAGE_PIXELS / 1000000) +
                                                " megapixels MarkerKit reads");
    return BRIDGE_OK;
}

// The orientation tag (0x0112) of the first image directory of TIFF-structured data (a TIFF file, or
// the EXIF block of a JPEG, PNG or WebP, which is one): its value, 0 when absent or unreadable.
int32_t tiff_orientation(const uint8_t *t, size_t n) {
    if (n < 8 || !((t[0] == 'I' && t[1] == 'I') || (t[0] == 'M' && t[1] == 'M'))) return 0;
    const bool little = t[0] == 'I';
    auto u16 = [&](size_t i) { return little ? uint32_t(t[i] | t[i + 1] << 8) : uint32_t(t[i] << 8 | t[i + 1]); };
    auto u32 = [&](size_t i) { return little ? u16(i) | u16(i + 2) << 16 : u16(i) << 16 | u16(i + 2); };
    if (u16(2) != 42) return 0;
    const size_t directory = u32(4);
    if (directory + 2 > n) return 0;
    const size_t entries = u16(directory);
    for (size_t k = 0; k < entries; ++k) {
        const size_t e = directory + 2 + 12 * k;
        if (e + 12 > n) return 0;
        if (u16(e) != 0x0112) continue;
        switch (u16(e + 2)) {  // the type: BYTE, SHORT (as written), LONG
        case 1: return t[e + 8];
        case 3: return int32_t(u16(e + 8));
        case 4: return int32_t(std::min<uint32_t>(u32(e + 8), 0x7fffffff));
        default: return 0;
        }
    }
    return 0;
}

enum class Container { other, jpeg, png, webp, tiff };

// The orientation tag a file carries where viewers look for it: the EXIF block of a JPEG (APP1), PNG
// (eXIf) or WebP (EXIF chunk), or a TIFF's own first directory. 0 when it carries none.
int32_t file_orientation(const uint8_t *b, size_t n, Container &container) {
    auto be16 = [&](size_t i) { return size_t(b[i]) << 8 | b[i + 1]; };
    auto be32 = [&](size_t i) { return be16(i) << 16 | be16(i + 2); };
    auto le32 = [&](size_t i) { return size_t(b[i]) | size_t(b[i + 1]) << 8 | size_t(b[i + 2]) << 16 | size_t(b[i + 3]) << 24; };
    auto exif = [&](const uint8_t *data, size_t size) {  // "Exif\0\0" then the TIFF structure
        if (size >= 6 && std::memcmp(data, "Exif\0\0", 6) == 0) return tiff_orientation(data + 6, size - 6);
        return tiff_orientation(data, size);
    };
    container = Container::other;
    if (n >= 4 && b[0] == 0xFF && b[1] == 0xD8) {
        container = Container::jpeg;
        size_t i = 2;
        while (i + 4 <= n && b[i] == 0xFF) {
            const uint8_t marker = b[i + 1];
            if (marker == 0xFF) { ++i; continue; }
            if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) { i += 2; continue; }
            if (marker == 0xDA || marker == 0xD9) break;  // the picture starts: no EXIF after it
            const size_t length = be16(i + 2);
            if (length < 2 || length > n - i - 2) break;
            if (marker == 0xE1 && length >= 8 && std::memcmp(b + i + 4, "Exif\0\0", 6) == 0) return exif(b + i + 4, length - 2);
            i += 2 + length;
        }
        return 0;
    }
    if (n >= 8 && std::memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0) {
        container = Container::png;
        for (size_t i = 8; i + 12 <= n;) {
            const size_t length = be32(i);
            if (length > n - i - 12) break;
            if (std::memcmp(b + i + 4, "eXIf", 4) == 0) return exif(b + i + 8, length);
            if (std::memcmp(b + i + 4, "IEND", 4) == 0) break;
            i += 12 + length;
        }
        return 0;
    }
    if (n >= 12 && std::memcmp(b, "RIFF", 4) == 0 && std::memcmp(b + 8, "WEBP", 4) == 0) {
        container = Container::webp;
        for (size_t i = 12; i + 8 <= n;) {
            const size_t length = le32(i + 4);
            if (length > n - i - 8) break;
            if (std::memcmp(b + i, "EXIF", 4) == 0) return exif(b + i + 8, length);
            i += 8 + length + (length & 1);
        }
        return 0;
    }
    if (n >= 8 && (std::memcmp(b, "II*\0", 4) == 0 || std::memcmp(b, "MM\0*", 4) == 0)) {
        container = Container::tiff;
        return tiff_orientation(b, n);
    }
    return 0;
}

// `image` as a viewer shows it under EXIF orientation `orientation` (2-8; others leave it as it is):
// the transforms of OpenCV's own ApplyExifOrientation.
cv::Mat oriented(const cv::Mat &image, int32_t orientation) {
    cv::Mat out;
    switch (orientation) {
    case 2: cv::flip(image, out, 1); break;                              // mirrored left-right
    case 3: cv::flip(image, out, -1); break;                             // turned 180 degrees
    case 4: cv::flip(image, out, 0); break;                              // mirrored top-bottom
    case 5: cv::transpose(image, out); break;                            // transposed
    case 6: cv::transpose(image, out); cv::flip(out, out, 1); break;     // turned 90 degrees clockwise
    case 7: cv::transpose(image, out); cv::flip(out, out, -1); break;    // transverse
    case 8: cv::transpose(image, out); cv::flip(out, out, 0); break;     // turned 90 degrees anticlockwise
    default: return image;
    }
    return out;
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

// `image`'s values stretched linearly from their smallest to their largest (all channels together)
// onto 0-255; a flat picture becomes 0.
cv::Mat stretched(const cv::Mat &image) {
    double low = 0, high = 0;
    cv::minMaxLoc(image.reshape(1), &low, &high);
    cv::Mat out;
    const double scale = high > low ? 255.0 / (high - low) : 0;
    image.convertTo(out, CV_8U, scale, -low * scale);
    return out;
}

// Any decoded depth to 8 bits (documented with cvb_image_read): 16-bit pictures whose values reach
// 4096 use the full range and keep their top byte (what the codecs give when asked for 8 bits);
// those below (10- and 12-bit cameras store the sensor's value as is) are stretched from their darkest
// to their brightest value; floating point (EXR, HDR, PFM) is taken as 0-1; signed integers stretched.
cv::Mat to_8bit(const cv::Mat &image) {
    switch (image.depth()) {
    case CV_8U:
        return image;
    case CV_16U: {
        double low = 0, high = 0;
        cv::minMaxLoc(image.reshape(1), &low, &high);
        if (high < CVB_LOW_BITS_LIMIT) return stretched(image);
        cv::Mat out(image.size(), CV_MAKETYPE(CV_8U, image.channels()));
        const int values = image.cols * image.channels();
        for (int y = 0; y < image.rows; ++y) {
            const uint16_t *from = image.ptr<uint16_t>(y);
            uint8_t *to = out.ptr<uint8_t>(y);
            for (int x = 0; x < values; ++x) to[x] = uint8_t(from[x] >> 8);
        }
        return out;
    }
    case CV_32F:
    case CV_64F: {
        cv::Mat out;
        image.convertTo(out, CV_8U, 255.0);
        return out;
    }
    default:
        return stretched(image);
    }
}

// Decodes `count` bytes into the thread's kept picture; `out` views it (valid until the thread's next
// decode). Too large a header is refused before decoding; an undecodable picture gives BRIDGE_ERR_IO (the
// caller says what it was). Decoded at the file's own depth (8 bits made as to_8bit says) and, for
// colour, in the file's own channels (gray made BGR here): imdecode's IMREAD_COLOR with ANYDEPTH
// returns garbage for a gray EXR and nothing for a float TIFF. The orientation tag is applied here,
// not by imdecode, so that what was done is known (`orientation` gets the tag, 0 for none): OpenCV 4.6
// applies it for JPEG and PNG (not WebP) unless told not to, and its TIFF decoder (libtiff) always.
int32_t decode_kept(const uint8_t *bytes, size_t count, int32_t channels, cvb_image *out, int32_t *orientation) {
    const cvb::ImgCodecs &codecs = cvb::imgcodecs();
    if (!codecs.problem.empty()) return cvb::fail(BRIDGE_ERR_UNAVAILABLE, codecs.problem);
    if (int32_t refused = refuse_if_too_large(bytes, count); refused < 0) return refused;
    Container container = Container::other;
    const int32_t tag = file_orientation(bytes, count, container);
    if (orientation != nullptr) *orientation = tag;
    const cv::Mat encoded(1, int(count), CV_8UC1, const_cast<uint8_t *>(bytes));
    const int flags = cv::IMREAD_ANYDEPTH | cv::IMREAD_IGNORE_ORIENTATION |
                      (channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_ANYCOLOR);
    decoding.image = quietly([&] { return codecs.imdecode(encoded, flags); });
    if (decoding.image.empty()) return BRIDGE_ERR_IO;
    decoding.image = to_8bit(decoding.image);
    if (container != Container::tiff) decoding.image = oriented(decoding.image, tag);
    if (decoding.image.channels() != channels) {
        cv::Mat converted;
        cv::cvtColor(decoding.image, converted, channels == 1 ? cv::COLOR_BGR2GRAY : cv::COLOR_GRAY2BGR);
        decoding.image = converted;
    }
    const cv::Mat &image = decoding.image;
    *out = cvb_image{image.cols, image.rows, int32_t(image.step[0]), image.channels(), image.data};
    return BRIDGE_OK;
}
}

extern "C" int32_t cvb_image_read(const char *path, int32_t channels, cvb_image *out, int32_t *orientation) {
    return cvb::guarded("read image", [&]() -> int32_t {
        if (path == nullptr || out == nullptr || (channels != 1 && channels != 3))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "read image: bad argument");
        *out = cvb_image{0, 0, 0, 0, nullptr};
        if (orientation != nullptr) *orientation = 0;
        // The whole file into the thread's kept buffer (read(2): no stdio buffer to allocate). Opened
        // without blocking: opening a FIFO for reading otherwise waits for a writer, for ever; it, a
        // socket or a device is then refused by fstat below, never read.
        const int file = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        const auto failure = [&] { return cvb::fail(BRIDGE_ERR_IO, std::string("cannot read or decode image '") + path + "'"); };
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
        const int32_t status = decode_kept(decoding.file.data(), decoding.file.size(), channels, out, orientation);
        return status == BRIDGE_ERR_IO ? failure() : status;
    });
}

extern "C" void cvb_decoded_release(void) { decoding.image.release(); }

extern "C" int32_t cvb_image_orientation(const uint8_t *bytes, int32_t count) {
    if (bytes == nullptr || count <= 0) return 0;
    Container container = Container::other;
    return file_orientation(bytes, size_t(count), container);
}

extern "C" int32_t cvb_image_encode(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                                    int32_t channels, const char *extension, cvb_image *out) {
    return cvb::guarded("encode image", [&]() -> int32_t {
        if (!cvb::valid_image(pixels, width, height, stride, channels) || extension == nullptr || out == nullptr)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "encode image: bad argument");
        const cvb::ImgCodecs &codecs = cvb::imgcodecs();
        if (!codecs.problem.empty()) return cvb::fail(BRIDGE_ERR_UNAVAILABLE, codecs.problem);
        std::vector<uint8_t> bytes;
        if (!codecs.imencode(extension, cvb::view(pixels, width, height, stride, channels), bytes, std::vector<int>()))
            return cvb::fail(BRIDGE_ERR_IO, std::string("cannot encode image as ") + extension);
        auto *data = static_cast<uint8_t *>(std::malloc(bytes.size() + 1));
        if (data == nullptr) return cvb::fail(BRIDGE_ERR_IO, "encode image: out of memory");
        std::memcpy(data, bytes.data(), bytes.size());
        *out = cvb_image{static_cast<int32_t>(bytes.size()), 1, static_cast<int32_t>(bytes.size()), 1, data};
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_to_gray(const uint8_t *pixels, int32_t width, int32_t height, int32_t stride,
                               int32_t channels, uint8_t *gray) {
    return cvb::guarded("to gray", [&]() -> int32_t {
        if (!cvb::valid_image(pixels, width, height, stride, channels) || gray == nullptr || channels == 1)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "to gray: bad argument");
        cv::Mat out(height, width, CV_8UC1, gray);
        cv::cvtColor(cvb::view(pixels, width, height, stride, channels), out,
                     channels == 3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
        return BRIDGE_OK;
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
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "jpeg: bad argument");
        const cvb::ImgCodecs &codecs = cvb::imgcodecs();
        if (!codecs.problem.empty()) return cvb::fail(BRIDGE_ERR_UNAVAILABLE, codecs.problem);
        cv::Mat image = cvb::gray_view(gray, width, height, stride);
        std::vector<uint8_t> bytes;
        codecs.imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_QUALITY, quality});
        cv::Mat decoded = codecs.imdecode(bytes, cv::IMREAD_GRAYSCALE);
        if (decoded.size() != image.size()) return cvb::fail(BRIDGE_ERR_IO, "jpeg: round trip changed the size");
        decoded.copyTo(image);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_image_decode(const uint8_t *bytes, int32_t count, int32_t channels, cvb_image *out) {
    return cvb::guarded("decode image", [&]() -> int32_t {
        if (bytes == nullptr || count <= 0 || out == nullptr || (channels != 1 && channels != 3))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "decode image: bad argument");
        *out = cvb_image{0, 0, 0, 0, nullptr};
        const int32_t status = decode_kept(bytes, size_t(count), channels, out, nullptr);
        return status == BRIDGE_ERR_IO ? cvb::fail(BRIDGE_ERR_IO, "not a decodable image") : status;
    });
}

extern "C" int32_t cvb_yuyv_to_bgr(const uint8_t *yuyv, int32_t width, int32_t height, int32_t stride, uint8_t *bgr) {
    return cvb::guarded("YUYV to BGR", [&]() -> int32_t {
        if (yuyv == nullptr || bgr == nullptr || width <= 0 || width % 2 != 0 || height <= 0 || stride < 2 * width)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "YUYV to BGR: bad argument");
        cv::Mat source(height, width, CV_8UC2, const_cast<uint8_t *>(yuyv), size_t(stride));
        cv::Mat target(height, width, CV_8UC3, bgr);
        cv::cvtColor(source, target, cv::COLOR_YUV2BGR_YUYV);
        return BRIDGE_OK;
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
