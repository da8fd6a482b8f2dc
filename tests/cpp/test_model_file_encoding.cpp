// The two encodings of a model file (io/json_io.hpp): every model of the format-compatibility
// files written in the binary encoding loads to the same model as from its text, and the
// encoding is chosen by the numbers in the document (test_json_io.cpp checks the bytes).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cdens/cdens.hpp"
#include "io/csv.hpp"
#include "io/json_io.hpp"
#include "support.hpp"

namespace cdens {
namespace {

bool is_binary_file(const std::string& path) {
  return test::file_bytes(path).rfind("\xd9\xd9\xf7", 0) == 0;
}

TEST(ModelFileEncoding, EveryEarlierModelReadsTheSameFromItsBinaryEncoding) {
  const std::string directory = std::string(CDENS_TEST_DATA_DIR) + "/models_ed836a3/";
  const Matrix rows = read_csv(directory + "crabs60.csv").values;
  const std::string path = test::temporary_path("binary_model");
  int models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json" || name == "expected.json") continue;
    SCOPED_TRACE(name);
    const nlohmann::json text = read_model_document(entry.path().string());
    write_model_document(path, text, 0);
    ASSERT_TRUE(is_binary_file(path));
    const nlohmann::json binary = read_model_document(path);
    if (model_file_shape(text) == "gaussian_mixture") {
      const DensityModel expected = density_model_from_json(text);
      const DensityModel read = density_model_from_json(binary);
      EXPECT_EQ(density_model_to_json(read), density_model_to_json(expected));
      EXPECT_EQ(read.mixture.log_pdf(rows.topRows(2)), expected.mixture.log_pdf(rows.topRows(2)));
    } else {
      const ConditionalModel expected = conditional_model_from_json(text);
      const ConditionalModel read = conditional_model_from_json(binary);
      EXPECT_EQ(conditional_model_to_json(read), conditional_model_to_json(expected));
      EXPECT_EQ(read.mixture.log_pdf(rows.topRows(3), rows.row(3)),
                expected.mixture.log_pdf(rows.topRows(3), rows.row(3)));
    }
    ++models;
  }
  std::filesystem::remove(path);
  EXPECT_GE(models, 15);
}

TEST(ModelFileEncoding, LargeModelsAreWrittenBinaryAndSmallOnesAsText) {
  // A Parzen window keeps its d × n centres (and their widths and weights): more numbers than
  // kBinaryModelFileNumbers.
  Rng rng(4);
  const Index n = kBinaryModelFileNumbers / 2 + 5000;
  const Matrix x = test::normal_matrix(2, n, rng);
  ParzenOptions options;
  options.bandwidth = {0.3};
  const DensityModel large{fit_parzen(x, options).model, {"a", "b"}, {}};
  const std::string path = test::temporary_path("large_model");
  save_density_model(large, path);
  EXPECT_TRUE(is_binary_file(path));
  // 8 bytes per number against about 20 as text (17 significant digits, a comma, a space).
  EXPECT_LT(std::filesystem::file_size(path), density_model_to_json(large).dump(1).size() / 2);
  const DensityModel read = load_density_model(path);
  const Matrix queries = test::normal_matrix(2, 20, rng);
  EXPECT_EQ(read.mixture.log_pdf(queries), large.mixture.log_pdf(queries));

  const DensityModel small{fit_parzen(x.leftCols(1000), options).model, {"a", "b"}, {}};
  save_density_model(small, path);
  EXPECT_EQ(test::file_bytes(path).front(), '{');
  EXPECT_EQ(load_density_model(path).mixture.log_pdf(queries), small.mixture.log_pdf(queries));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cdens
