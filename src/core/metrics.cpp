#include "cdens/core/metrics.hpp"

#include "cdens/core/error.hpp"

namespace cdens {

CvLoss parse_cv_loss(std::string_view name) {
  if (name == "kl") return CvLoss::kl;
  if (name == "sq") return CvLoss::sq;
  throw InvalidArgument("unknown cross-validation loss '" + std::string(name) +
                        "' (expected kl or sq)");
}

std::string to_string(CvLoss loss) { return loss == CvLoss::kl ? "kl" : "sq"; }

double mean_log_likelihood(const ConditionalMixture& model, const MatrixView& x,
                           const MatrixView& y) {
  if (x.cols() == 0) throw DataError("cannot score an empty data set");
  return model.log_pdf(x, y).mean();
}

double negative_log_likelihood(const ConditionalMixture& model, const MatrixView& x,
                               const MatrixView& y) {
  return -mean_log_likelihood(model, x, y);
}

double squared_loss(const ConditionalMixture& model, const MatrixView& x, const MatrixView& y) {
  if (x.cols() == 0) throw DataError("cannot score an empty data set");
  const Vector densities = model.log_pdf(x, y).array().exp();
  return (0.5 * model.squared_norm(x) - densities).mean();
}

double held_out_loss(CvLoss loss, const ConditionalMixture& model, const MatrixView& x,
                     const MatrixView& y) {
  return loss == CvLoss::kl ? negative_log_likelihood(model, x, y) : squared_loss(model, x, y);
}

}  // namespace cdens
