// A rig of cameras solved jointly: every camera's intrinsics, every camera's pose relative to camera 0 and
// every view's board pose, refined together by Levenberg-Marquardt over all reprojection errors (the views'
// poses eliminated by their Schur complement, as bundle adjusters do), with the covariance of the
// intrinsics and extrinsics. OpenCV's own stereo calibration and rectification are in stereo.cpp.
#include <cmath>
#include <vector>
#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include "bridge_error.hpp"
#include "projection.hpp"

namespace {

struct Rig {
    int32_t cameras, views, groups;
    const cvb_model *models;
    const int32_t *counts, *free_counts, *group_view, *group_camera, *group_points;
    const double *object, *image;
    const double *weight;                  // per point: 1 / its noise, relative (nullptr: all 1)
    std::vector<cv::Mat> parameterization; // n_c x free_c per camera
    std::vector<int> intrinsic_offset;     // first global column of each camera's free intrinsics
    int extrinsic_offset = 0, global = 0;
    std::vector<size_t> first_point;       // each group's first point
};

struct State {
    std::vector<cv::Mat> k, d;      // per camera
    std::vector<cv::Vec3d> er, et;  // camera c from camera 0
    std::vector<cv::Vec3d> vr, vt;  // board in camera 0, per view
};

// The board's pose in camera c, with d(r3, t3)/d(view pose) and d(r3, t3)/d(extrinsic) (6 x 6 each).
void pose_in(const State &s, int c, int v, cv::Mat &r3, cv::Mat &t3, cv::Mat &by_view, cv::Mat &by_extrinsic) {
    if (c == 0) {
        r3 = cv::Mat(s.vr[v]).clone();
        t3 = cv::Mat(s.vt[v]).clone();
        by_view = cv::Mat::eye(6, 6, CV_64F);
        by_extrinsic = cv::Mat::zeros(6, 6, CV_64F);
        return;
    }
    cv::Mat dr3dr1, dr3dt1, dr3dr2, dr3dt2, dt3dr1, dt3dt1, dt3dr2, dt3dt2;
    cv::composeRT(cv::Mat(s.vr[v]), cv::Mat(s.vt[v]), cv::Mat(s.er[c]), cv::Mat(s.et[c]), r3, t3, dr3dr1, dr3dt1, dr3dr2, dr3dt2,
                  dt3dr1, dt3dt1, dt3dr2, dt3dt2);
    by_view.create(6, 6, CV_64F);
    by_extrinsic.create(6, 6, CV_64F);
    dr3dr1.copyTo(by_view(cv::Rect(0, 0, 3, 3)));
    dr3dt1.copyTo(by_view(cv::Rect(3, 0, 3, 3)));
    dt3dr1.copyTo(by_view(cv::Rect(0, 3, 3, 3)));
    dt3dt1.copyTo(by_view(cv::Rect(3, 3, 3, 3)));
    dr3dr2.copyTo(by_extrinsic(cv::Rect(0, 0, 3, 3)));
    dr3dt2.copyTo(by_extrinsic(cv::Rect(3, 0, 3, 3)));
    dt3dr2.copyTo(by_extrinsic(cv::Rect(0, 3, 3, 3)));
    dt3dt2.copyTo(by_extrinsic(cv::Rect(3, 3, 3, 3)));
}

double point_weight(const Rig &rig, int g, int i) {
    return rig.weight == nullptr ? 1.0 : rig.weight[rig.first_point[g] + size_t(i)];
}

// One group's residuals (observed - projected, 2N, each point's two weighted by its weight) and, when asked, its Jacobian columns: global (2N x global)
// and view (2N x 6).
void group_terms(const Rig &rig, const State &s, int g, cv::Mat &residual, cv::Mat *global, cv::Mat *view) {
    const int c = rig.group_camera[g], v = rig.group_view[g], count = rig.group_points[g];
    std::vector<cv::Point3d> board;
    for (int i = 0; i < count; ++i) {
        const double *p = rig.object + 3 * (rig.first_point[g] + i);
        board.emplace_back(p[0], p[1], p[2]);
    }
    cv::Mat r3, t3, by_view, by_extrinsic, jacobian;
    pose_in(s, c, v, r3, t3, by_view, by_extrinsic);
    std::vector<cv::Point2d> projected;
    cvb::project_with_jacobian(board, r3, t3, s.k[c], s.d[c], rig.counts[c], rig.models[c], projected, jacobian);
    residual.create(2 * count, 1, CV_64F);
    for (int i = 0; i < count; ++i) {
        const double *q = rig.image + 2 * (rig.first_point[g] + i);
        const double w = point_weight(rig, g, i);
        residual.at<double>(2 * i) = w * (q[0] - projected[i].x);
        residual.at<double>(2 * i + 1) = w * (q[1] - projected[i].y);
    }
    if (global == nullptr) return;
    for (int i = 0; i < count; ++i) jacobian.rowRange(2 * i, 2 * i + 2) *= point_weight(rig, g, i);
    const int n = 4 + rig.counts[c];
    const cv::Mat pose = jacobian.colRange(n, n + 6);
    *global = cv::Mat::zeros(2 * count, rig.global, CV_64F);
    cv::Mat intrinsic = jacobian.colRange(0, n) * rig.parameterization[c];
    intrinsic.copyTo(global->colRange(rig.intrinsic_offset[c], rig.intrinsic_offset[c] + intrinsic.cols));
    if (c > 0) {
        cv::Mat extrinsic = pose * by_extrinsic;
        const int at = rig.extrinsic_offset + 6 * (c - 1);
        extrinsic.copyTo(global->colRange(at, at + 6));
    }
    *view = pose * by_view;
}

double cost(const Rig &rig, const State &s) {
    double sum = 0;
    for (int g = 0; g < rig.groups; ++g) {
        cv::Mat r;
        group_terms(rig, s, g, r, nullptr, nullptr);
        sum += r.dot(r);
    }
    return sum;
}

// The normal equations: A (global x global), b (global), and per view D (6 x 6), B (global x 6), e (6).
struct Normal {
    cv::Mat A, b;
    std::vector<cv::Mat> D, B, e;
};

Normal normal_equations(const Rig &rig, const State &s) {
    Normal q;
    q.A = cv::Mat::zeros(rig.global, rig.global, CV_64F);
    q.b = cv::Mat::zeros(rig.global, 1, CV_64F);
    for (int v = 0; v < rig.views; ++v) {
        q.D.push_back(cv::Mat::zeros(6, 6, CV_64F));
        q.B.push_back(cv::Mat::zeros(rig.global, 6, CV_64F));
        q.e.push_back(cv::Mat::zeros(6, 1, CV_64F));
    }
    for (int g = 0; g < rig.groups; ++g) {
        cv::Mat r, jg, jv;
        group_terms(rig, s, g, r, &jg, &jv);
        const int v = rig.group_view[g];
        q.A += jg.t() * jg;
        q.b += jg.t() * r;
        q.D[v] += jv.t() * jv;
        q.B[v] += jg.t() * jv;
        q.e[v] += jv.t() * r;
    }
    return q;
}

State step(const Rig &rig, const State &s, const cv::Mat &dg, const std::vector<cv::Mat> &dv) {
    State next = s;
    for (int c = 0; c < rig.cameras; ++c) {
        const cv::Mat delta = rig.parameterization[c] * dg.rowRange(rig.intrinsic_offset[c], rig.intrinsic_offset[c] + rig.free_counts[c]);
        next.k[c] = s.k[c].clone();
        next.d[c] = s.d[c].clone();
        next.k[c].at<double>(0, 0) += delta.at<double>(0);
        next.k[c].at<double>(1, 1) += delta.at<double>(1);
        next.k[c].at<double>(0, 2) += delta.at<double>(2);
        next.k[c].at<double>(1, 2) += delta.at<double>(3);
        for (int i = 0; i < rig.counts[c]; ++i) next.d[c].at<double>(i) += delta.at<double>(4 + i);
        if (c > 0) {
            const int at = rig.extrinsic_offset + 6 * (c - 1);
            for (int i = 0; i < 3; ++i) {
                next.er[c][i] += dg.at<double>(at + i);
                next.et[c][i] += dg.at<double>(at + 3 + i);
            }
        }
    }
    for (int v = 0; v < rig.views; ++v)
        for (int i = 0; i < 3; ++i) {
            next.vr[v][i] += dv[v].at<double>(i);
            next.vt[v][i] += dv[v].at<double>(3 + i);
        }
    return next;
}

// The reduced system S dg = y after the views' poses are eliminated, with damping `lambda` (Marquardt's
// scaling by the diagonal).
void reduced(const Rig &rig, const Normal &q, double lambda, cv::Mat &S, cv::Mat &y, std::vector<cv::Mat> &Dinv) {
    S = q.A.clone();
    for (int i = 0; i < rig.global; ++i) S.at<double>(i, i) *= 1 + lambda;
    y = q.b.clone();
    Dinv.assign(rig.views, cv::Mat());
    for (int v = 0; v < rig.views; ++v) {
        cv::Mat d = q.D[v].clone();
        for (int i = 0; i < 6; ++i) d.at<double>(i, i) *= 1 + lambda;
        Dinv[v] = d.inv(cv::DECOMP_SVD);
        S -= q.B[v] * Dinv[v] * q.B[v].t();
        y -= q.B[v] * Dinv[v] * q.e[v];
    }
}

} // namespace

extern "C" int32_t cvb_rig_solve(int32_t cameras, const cvb_model *models, const int32_t *distortion_counts,
                                 double *camera_matrices, double *distortions, const double *parameterizations,
                                 const int32_t *free_counts, double *extrinsics, int32_t views, double *poses, int32_t groups,
                                 const int32_t *group_view, const int32_t *group_camera, const int32_t *group_points,
                                 const double *object_points, const double *image_points, const double *point_weights,
                                 double *covariance, double *group_rms, double *group_weighted_rms, double *noise, int32_t *iterations) {
    return cvb::guarded("rig solve", [&]() -> int32_t {
        if (cameras < 1 || views < 1 || groups < 1 || models == nullptr || distortion_counts == nullptr || camera_matrices == nullptr ||
            distortions == nullptr || parameterizations == nullptr || free_counts == nullptr || extrinsics == nullptr ||
            poses == nullptr || group_view == nullptr || group_camera == nullptr || group_points == nullptr ||
            object_points == nullptr || image_points == nullptr || covariance == nullptr || group_rms == nullptr || noise == nullptr)
            return cvb::fail(BRIDGE_ERR_ARGUMENT, "rig solve: bad argument");
        Rig rig{cameras, views, groups, models, distortion_counts, free_counts, group_view, group_camera, group_points, object_points, image_points,
                point_weights};
        size_t at = 0;
        for (int g = 0; g < groups; ++g) {
            if (group_view[g] < 0 || group_view[g] >= views || group_camera[g] < 0 || group_camera[g] >= cameras || group_points[g] < 3)
                return cvb::fail(BRIDGE_ERR_ARGUMENT, "rig solve: bad group");
            rig.first_point.push_back(at);
            at += size_t(group_points[g]);
        }
        for (size_t i = 0; point_weights != nullptr && i < at; ++i)
            if (!(point_weights[i] > 0) || !std::isfinite(point_weights[i])) return cvb::fail(BRIDGE_ERR_ARGUMENT, "rig solve: bad point weight");
        const double *p = parameterizations;
        for (int c = 0; c < cameras; ++c) {
            const int n = 4 + distortion_counts[c];
            if (distortion_counts[c] < 0 || distortion_counts[c] > 8 || free_counts[c] < 1 || free_counts[c] > n ||
                models[c] < 0 || models[c] > 2 || (models[c] == CVB_MODEL_FISHEYE && distortion_counts[c] != 4))
                return cvb::fail(BRIDGE_ERR_ARGUMENT, "rig solve: bad camera");
            rig.parameterization.push_back(cv::Mat(n, free_counts[c], CV_64F, const_cast<double *>(p)).clone());
            p += n * free_counts[c];
            rig.intrinsic_offset.push_back(rig.global);
            rig.global += free_counts[c];
        }
        rig.extrinsic_offset = rig.global;
        rig.global += 6 * (cameras - 1);
        State s;
        for (int c = 0; c < cameras; ++c) {
            s.k.push_back(cvb::matrix3_of(camera_matrices + 9 * c));
            s.d.push_back(cvb::coefficients_of(distortions + 8 * c, distortion_counts[c]));
            s.er.emplace_back(extrinsics + 6 * c);
            s.et.emplace_back(extrinsics + 6 * c + 3);
        }
        for (int v = 0; v < views; ++v) {
            s.vr.emplace_back(poses + 6 * v);
            s.vt.emplace_back(poses + 6 * v + 3);
        }
        double current = cost(rig, s), lambda = 1e-3;
        int iteration = 0;
        for (; iteration < 200; ++iteration) {
            const Normal q = normal_equations(rig, s);
            bool improved = false;
            while (lambda < 1e12) {
                cv::Mat S, y;
                std::vector<cv::Mat> Dinv, dv(views);
                reduced(rig, q, lambda, S, y, Dinv);
                cv::Mat dg;
                cv::solve(S, y, dg, cv::DECOMP_SVD);
                for (int v = 0; v < views; ++v) dv[v] = Dinv[v] * (q.e[v] - q.B[v].t() * dg);
                const State next = step(rig, s, dg, dv);
                const double trial = cost(rig, next);
                if (std::isfinite(trial) && trial < current) {
                    const double gain = (current - trial) / current;
                    s = next;
                    current = trial;
                    lambda = std::max(lambda / 10, 1e-12);
                    improved = gain > 1e-12;
                    break;
                }
                lambda *= 10;
            }
            if (!improved) break;
        }
        // The covariance of the global parameters: sigma^2 S^-1 of the undamped system.
        size_t observations = 2 * at;
        const double dof = double(observations) - double(rig.global) - 6.0 * views;
        if (dof <= 0) return cvb::fail(BRIDGE_ERR_ARGUMENT, "rig solve: fewer observations than parameters");
        const double sigma2 = current / dof;
        const Normal q = normal_equations(rig, s);
        cv::Mat S, y;
        std::vector<cv::Mat> Dinv;
        reduced(rig, q, 0, S, y, Dinv);
        const cv::Mat inverse = S.inv(cv::DECOMP_SVD) * sigma2;
        for (int i = 0; i < rig.global * rig.global; ++i) covariance[i] = inverse.at<double>(i / rig.global, i % rig.global);
        for (int c = 0; c < cameras; ++c) {
            for (int i = 0; i < 9; ++i) camera_matrices[9 * c + i] = s.k[c].at<double>(i / 3, i % 3);
            for (int i = 0; i < distortion_counts[c]; ++i) distortions[8 * c + i] = s.d[c].at<double>(i);
            for (int i = 0; i < 3; ++i) {
                extrinsics[6 * c + i] = c == 0 ? 0 : s.er[c][i];
                extrinsics[6 * c + 3 + i] = c == 0 ? 0 : s.et[c][i];
            }
        }
        for (int v = 0; v < views; ++v)
            for (int i = 0; i < 3; ++i) {
                poses[6 * v + i] = s.vr[v][i];
                poses[6 * v + 3 + i] = s.vt[v][i];
            }
        for (int g = 0; g < groups; ++g) {
            cv::Mat r;
            group_terms(rig, s, g, r, nullptr, nullptr);
            if (group_weighted_rms != nullptr) group_weighted_rms[g] = std::sqrt(r.dot(r) / group_points[g]);
            for (int i = 0; i < group_points[g]; ++i) r.rowRange(2 * i, 2 * i + 2) /= point_weight(rig, g, i);
            group_rms[g] = std::sqrt(r.dot(r) / group_points[g]);
        }
        *noise = std::sqrt(sigma2);
        if (iterations != nullptr) *iterations = iteration;
        return BRIDGE_OK;
    });
}
