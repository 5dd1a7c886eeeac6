#include "common/run_report.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace netbench {
namespace {

RunReport ExampleReport() {
  RunReport report("echo-client", "stream");
  report.SetParam("clients", 3);
  report.SetParam("duration", "10s");
  report.SetParam("ratio", 0.5);
  report.SetParam("keepalive", true);
  report.SetParam("quote\"and\\slash\n", "tab\there");
  report.SetMetric("msgs_per_s", 123456.5, "1/s");
  report.SetMetric("not_a_number", 0.0 / 0.0, "1");
  report.SetCount("errors.ECONNRESET", 2);
  LatencyHistogram h;
  for (int i = 1; i <= 1000; ++i) h.Record(i * 1000);
  report.AddHistogram("rtt", h);
  report.AddSamples("wall_time", {0.2, 0.1, 0.3}, "s");
  report.AddSeries("sent", 0.1, 0.043, {1234, 1200, 17});
  report.AddLibraryVersion("boringssl", "test");
  return report;
}

TEST(RunReportTest, JsonParsesBackWithEveryField) {
  nlohmann::json doc = nlohmann::json::parse(ExampleReport().ToJson());
  EXPECT_EQ(doc["schema"], kRunReportSchema);
  EXPECT_EQ(doc["program"], "echo-client");
  EXPECT_EQ(doc["variant"], "stream");
  EXPECT_EQ(doc["params"]["clients"], 3);
  EXPECT_EQ(doc["params"]["duration"], "10s");
  EXPECT_EQ(doc["params"]["ratio"], 0.5);
  EXPECT_EQ(doc["params"]["keepalive"], true);
  EXPECT_EQ(doc["params"]["quote\"and\\slash\n"], "tab\there");
  EXPECT_EQ(doc["metrics"]["msgs_per_s"]["value"], 123456.5);
  EXPECT_EQ(doc["metrics"]["msgs_per_s"]["unit"], "1/s");
  EXPECT_TRUE(doc["metrics"]["not_a_number"]["value"].is_null());
  EXPECT_EQ(doc["counts"]["errors.ECONNRESET"], 2);
  const nlohmann::json& rtt = doc["histograms"]["rtt"];
  EXPECT_EQ(rtt["count"], 1000);
  EXPECT_EQ(rtt["min"], 1000);
  EXPECT_EQ(rtt["max"], 1000000);
  EXPECT_NEAR(rtt["percentiles"]["50"].get<double>(), 500000, 500);
  EXPECT_NEAR(rtt["percentiles"]["99.9"].get<double>(), 999000, 1000);
  int64_t bucket_total = 0;
  for (const auto& bucket : rtt["buckets"]) bucket_total += bucket[1].get<int64_t>();
  EXPECT_EQ(bucket_total, 1000);
  const nlohmann::json& wall = doc["samples"]["wall_time"];
  EXPECT_EQ(wall["values"].size(), 3u);
  EXPECT_DOUBLE_EQ(wall["median"].get<double>(), 0.2);
  EXPECT_EQ(wall["ci95"].size(), 2u);
  const nlohmann::json& sent = doc["series"]["sent"];
  EXPECT_EQ(sent["interval_s"], 0.1);
  EXPECT_EQ(sent["last_s"], 0.043);
  EXPECT_EQ(sent["values"], nlohmann::json::array({1234, 1200, 17}));
  const nlohmann::json& env = doc["environment"];
  EXPECT_FALSE(env["os"].get<std::string>().empty());
  EXPECT_FALSE(env["kernel"].get<std::string>().empty());
  EXPECT_GE(env["cores"].get<int>(), 1);
  EXPECT_FALSE(env["compiler"].get<std::string>().empty());
  EXPECT_FALSE(env["build_mode"].get<std::string>().empty());
  EXPECT_EQ(env["libraries"]["boringssl"], "test");
  EXPECT_TRUE(env["libraries"].contains("abseil"));
  EXPECT_FALSE(env["timestamp_utc"].get<std::string>().empty());
}

TEST(RunReportTest, EmptyReportIsValidJson) {
  nlohmann::json doc = nlohmann::json::parse(RunReport("p", "").ToJson());
  EXPECT_TRUE(doc["params"].empty());
  EXPECT_TRUE(doc["histograms"].empty());
  EXPECT_TRUE(doc["series"].empty());
}

TEST(RunReportTest, WriteJsonWritesTheSameDocument) {
  std::string path = testing::TempDir() + "/report.json";
  RunReport report = ExampleReport();
  ASSERT_TRUE(report.WriteJson(path).ok());
  std::ifstream file(path);
  nlohmann::json doc = nlohmann::json::parse(file);
  EXPECT_EQ(doc["metrics"]["msgs_per_s"]["value"], 123456.5);
  EXPECT_FALSE(report.WriteJson("/nonexistent-dir/x.json").ok());
}

TEST(RunReportTest, TableNamesEveryFigure) {
  std::string table = ExampleReport().ToTable();
  for (const char* expected :
       {"echo-client (stream)", "clients=3", "msgs_per_s", "errors.ECONNRESET", "rtt latency",
        "p99.9", "wall_time over 3 samples",
        "sent over 3 intervals of 0.1 s (the last 0.043 s): 2,451 in all"}) {
    EXPECT_NE(table.find(expected), std::string::npos) << expected << "\n" << table;
  }
}

TEST(RunReportTest, Formatting) {
  EXPECT_EQ(FormatNanos(850), "850 ns");
  EXPECT_EQ(FormatNanos(12300), "12.3 us");
  EXPECT_EQ(FormatNanos(4.56e6), "4.56 ms");
  EXPECT_EQ(FormatNanos(1.234e9), "1.234 s");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatCount(-1000), "-1,000");
  EXPECT_EQ(FormatCount(12), "12");
}

}  // namespace
}  // namespace netbench
