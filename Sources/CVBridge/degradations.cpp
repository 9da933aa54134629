// What a phone camera adds to a render: motion blur, soft shadows and sensor noise, each through OpenCV.
#include <algorithm>
#include <cmath>
#include <vector>
#include <opencv2/imgproc.hpp>
#include "bridge_error.hpp"

extern "C" int32_t cvb_motion_blur(uint8_t *gray, int32_t width, int32_t height, int32_t stride, double length,
                                   double angle_degrees) {
    return cvb::guarded("motion blur", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || !(length >= 0) || !(length <= 1000) || !std::isfinite(angle_degrees))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "motion blur: bad argument");
        if (length == 0) return BRIDGE_OK;
        // The segment the image moves along during the exposure, centred, drawn into the kernel as many
        // sub-pixel points each shared bilinearly among its four neighbours.
        const int radius = int(std::ceil(length / 2)) + 1;
        cv::Mat kernel = cv::Mat::zeros(2 * radius + 1, 2 * radius + 1, CV_32F);
        const double a = angle_degrees * CV_PI / 180, dx = std::cos(a), dy = std::sin(a);
        const int points = std::max(2, int(std::ceil(length * 16)));
        for (int k = 0; k < points; ++k) {
            const double t = length * ((k + 0.5) / points - 0.5);
            const double x = radius + t * dx, y = radius + t * dy;
            const int x0 = int(std::floor(x)), y0 = int(std::floor(y));
            const double fx = x - x0, fy = y - y0;
            kernel.at<float>(y0, x0) += float((1 - fx) * (1 - fy) / points);
            kernel.at<float>(y0, x0 + 1) += float(fx * (1 - fy) / points);
            kernel.at<float>(y0 + 1, x0) += float((1 - fx) * fy / points);
            kernel.at<float>(y0 + 1, x0 + 1) += float(fx * fy / points);
        }
        // The kernel is symmetric about its centre, so filter2D's correlation is the convolution.
        cv::Mat image = cvb::gray_view(gray, width, height, stride);
        cv::filter2D(image.clone(), image, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_soft_polygon(float *mask, int32_t width, int32_t height, const double *xy, int32_t count,
                                    double softness) {
    return cvb::guarded("soft polygon", [&]() -> int32_t {
        if (mask == nullptr || xy == nullptr || width <= 0 || height <= 0 || count < 3 || !(softness >= 0) || !(softness <= 10000))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "soft polygon: bad argument");
        for (int32_t i = 0; i < 2 * count; ++i)
            if (!std::isfinite(xy[i]) || std::abs(xy[i]) > 1e6) return cvb::fail(BRIDGE_ERR_ARGUMENT, "soft polygon: bad point");
        // A soft edge is smooth: drawn and blurred at a scale where the blur is about 2 px, then enlarged.
        // Drawn four times finer still and averaged down, so that edge pixels hold the part covered
        // (fillPoly's own anti-aliasing widens the polygon by about 0.7 px).
        const int scale = std::max(1, int(softness / 2));
        const int w = (width + scale - 1) / scale, h = (height + scale - 1) / scale;
        constexpr int fine = 4, shift = 8;
        const double sx = double(w) / width * fine, sy = double(h) / height * fine;
        std::vector<cv::Point> polygon;
        for (int32_t i = 0; i < count; ++i) {
            // Pixel centres at integers at every scale (cv::resize's mapping).
            polygon.emplace_back(int(std::lround(((xy[2 * i] + 0.5) * sx - 0.5) * (1 << shift))),
                                 int(std::lround(((xy[2 * i + 1] + 0.5) * sy - 0.5) * (1 << shift))));
        }
        cv::Mat drawn = cv::Mat::zeros(h * fine, w * fine, CV_8U);
        cv::fillPoly(drawn, std::vector<std::vector<cv::Point>>{polygon}, cv::Scalar(255), cv::LINE_8, shift);
        cv::Mat covered, small;
        cv::resize(drawn, covered, cv::Size(w, h), 0, 0, cv::INTER_AREA);
        covered.convertTo(small, CV_32F, 1.0 / 255);
        const double sigma = softness / scale;
        if (sigma > 0) cv::GaussianBlur(small, small, cv::Size(0, 0), sigma, sigma, cv::BORDER_REPLICATE);
        cv::Mat out(height, width, CV_32F, mask);
        if (scale == 1) small.copyTo(out);
        else cv::resize(small, out, out.size(), 0, 0, cv::INTER_LINEAR);
        return BRIDGE_OK;
    });
}

extern "C" int32_t cvb_sensor_noise(uint8_t *gray, int32_t width, int32_t height, int32_t stride, double electrons,
                                    double read_noise, double gamma, uint64_t seed) {
    return cvb::guarded("sensor noise", [&]() -> int32_t {
        if (!cvb::valid_gray(gray, width, height, stride) || !(electrons > 0) || !std::isfinite(electrons) || !(read_noise >= 0) ||
            !std::isfinite(read_noise) || !(gamma >= 1) || !(gamma <= 4))
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "sensor noise: bad argument");
        // Gray levels back to linear light (the camera's tone curve undone), the standard deviation of
        // shot noise (Poisson: the square root of the electrons) and read noise at each level, in linear
        // light as a fraction of white.
        cv::Mat linearTable(1, 256, CV_32F), sigmaTable(1, 256, CV_32F);
        for (int level = 0; level < 256; ++level) {
            const double linear = std::pow(level / 255.0, gamma);
            linearTable.at<float>(level) = float(linear);
            sigmaTable.at<float>(level) = float(std::sqrt(linear * electrons + read_noise * read_noise) / electrons);
        }
        cv::Mat image = cvb::gray_view(gray, width, height, stride);
        cv::Mat linear, sigma, noise(height, width, CV_32F);
        cv::LUT(image, linearTable, linear);
        cv::LUT(image, sigmaTable, sigma);
        cv::RNG random(seed);
        random.fill(noise, cv::RNG::NORMAL, 0, 1);
        linear += noise.mul(sigma);
        linear = cv::max(linear, 0);
        // The tone curve again: the noise of the dark levels is stretched the most.
        cv::pow(linear, 1 / gamma, linear);
        linear.convertTo(image, CV_8U, 255);
        return BRIDGE_OK;
    });
}
