// libFuzzer harness of the model-file reader (both encodings: JSON text, and CBOR after the
// binary file's tag): any bytes must end in a model or in a cdens::Error
// (or the JSON library's own exception for a field of the wrong type, which the command turns
// into a message naming the file). A model that loads is queried once at the origin: its answer
// must not crash and its log-density must not be NaN.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "cdens/core/types.hpp"
#include "cdens/model_file.hpp"
#include "io/json_io.hpp"

namespace {

void query_conditional(const cdens::ConditionalModel& model) {
  const cdens::Matrix x = cdens::Matrix::Zero(model.mixture.input_dim(), 1);
  const cdens::Matrix y = cdens::Matrix::Zero(model.mixture.output_dim(), 1);
  if (std::isnan(model.mixture.log_pdf(x, y)(0))) std::abort();
}

void query_density(const cdens::DensityModel& model) {
  const cdens::Matrix x = cdens::Matrix::Zero(model.mixture.dimension(), 1);
  if (std::isnan(model.mixture.log_pdf(x)(0))) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json document = cdens::parse_model_document(text, "fuzz.json");
    try {
      query_conditional(cdens::conditional_model_from_json(document));
    } catch (const cdens::Error&) {
    } catch (const nlohmann::json::exception&) {
    }
    try {
      query_density(cdens::density_model_from_json(document));
    } catch (const cdens::Error&) {
    } catch (const nlohmann::json::exception&) {
    }
  } catch (const cdens::Error&) {
  }
  return 0;
}
