// The series recorder on made-up times and counters: readings on the boundaries, late readings
// interpolated back to them, a reading that slept through intervals, the last interval partial or
// whole, a counter that went back, the bound on intervals, and the one-line JSON.
#include "common/client_series.h"

#include <cstdint>
#include <numeric>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace netbench {
namespace {

using ::testing::ElementsAre;

uint64_t Sum(const std::vector<uint64_t>& values) {
  return std::accumulate(values.begin(), values.end(), uint64_t{0});
}

TEST(ClientSeriesTest, ReadingsOnTheBoundariesGiveEachIntervalItsDifference) {
  ClientSeriesRecorder recorder(100);
  recorder.Start(1000, 50, 40);
  EXPECT_EQ(recorder.next_boundary(), 1100);
  recorder.Record(1100, 60, 45);
  recorder.Record(1200, 80, 70);
  EXPECT_EQ(recorder.next_boundary(), 1300);
  ClientSeries series = recorder.Finish(1243, 85, 80);
  EXPECT_EQ(series.interval_nanos, 100);
  EXPECT_EQ(series.last_nanos, 43);
  EXPECT_THAT(series.sent, ElementsAre(10, 20, 5));
  EXPECT_THAT(series.received, ElementsAre(5, 25, 10));
}

TEST(ClientSeriesTest, ALateReadingIsInterpolatedBackToTheBoundary) {
  ClientSeriesRecorder recorder(100);
  recorder.Start(0, 0, 0);
  // Read 10 after the boundary: of the 110 messages since the start, 100 fall before it.
  recorder.Record(110, 110, 0);
  ClientSeries series = recorder.Finish(150, 150, 0);
  EXPECT_THAT(series.sent, ElementsAre(100, 50));
  EXPECT_EQ(series.last_nanos, 50);
}

TEST(ClientSeriesTest, IntervalsAReaderSleptThroughShareItsReadingsDifference) {
  ClientSeriesRecorder recorder(100);
  recorder.Start(0, 0, 0);
  recorder.Record(400, 4000, 400);
  EXPECT_EQ(recorder.next_boundary(), 500);
  ClientSeries series = recorder.Finish(450, 4001, 400);
  EXPECT_THAT(series.sent, ElementsAre(1000, 1000, 1000, 1000, 1));
  EXPECT_THAT(series.received, ElementsAre(100, 100, 100, 100, 0));
}

TEST(ClientSeriesTest, AnEndPastUnreadBoundariesClosesThemFromTheLastReading) {
  ClientSeriesRecorder recorder(100);
  recorder.Start(0, 0, 0);
  ClientSeries series = recorder.Finish(250, 250, 25);
  EXPECT_THAT(series.sent, ElementsAre(100, 100, 50));
  EXPECT_THAT(series.received, ElementsAre(10, 10, 5));
  EXPECT_EQ(series.last_nanos, 50);
}

TEST(ClientSeriesTest, AnEndOnABoundaryMakesTheLastIntervalWhole) {
  ClientSeriesRecorder recorder(100);
  recorder.Start(0, 0, 0);
  recorder.Record(100, 7, 7);
  recorder.Record(200, 9, 9);
  ClientSeries series = recorder.Finish(200, 9, 9);
  EXPECT_THAT(series.sent, ElementsAre(7, 2));
  EXPECT_EQ(series.last_nanos, 100);

  ClientSeriesRecorder unread(100);
  unread.Start(0, 0, 0);
  series = unread.Finish(200, 10, 0);
  EXPECT_THAT(series.sent, ElementsAre(5, 5));
  EXPECT_EQ(series.last_nanos, 100);
}

TEST(ClientSeriesTest, AMeasuredPhaseOfNoLengthIsOneEmptyInterval) {
  ClientSeriesRecorder recorder(100);
  recorder.Start(500, 3, 3);
  ClientSeries series = recorder.Finish(500, 3, 3);
  EXPECT_THAT(series.sent, ElementsAre(0));
  EXPECT_EQ(series.last_nanos, 0);
}

// A session run again from its start (ClientSession::Restart) counts from zero again: the series
// never goes negative, and still adds up to the counters' difference.
TEST(ClientSeriesTest, ACounterThatWentBackIsGivenBackByTheLatestIntervals) {
  ClientSeriesRecorder recorder(100);
  recorder.Start(0, 0, 0);
  recorder.Record(100, 10, 10);
  recorder.Record(200, 8, 12);  // held at 10 for now
  recorder.Record(300, 15, 14);
  ClientSeries series = recorder.Finish(350, 9, 14);
  EXPECT_EQ(Sum(series.sent), 9u);
  EXPECT_THAT(series.sent, ElementsAre(9, 0, 0, 0));
  EXPECT_THAT(series.received, ElementsAre(10, 2, 2, 0));
}

TEST(ClientSeriesTest, AFullSeriesMergesPairsAndGoesOnAtTwiceTheInterval) {
  ClientSeriesRecorder recorder(10, /*max_intervals=*/4);
  recorder.Start(0, 0, 0);
  // One message per unit of time; readings on every boundary up to 95.
  for (int64_t t = 10; t <= 90; t += 10) {
    recorder.Record(t, t, 2 * t);
    EXPECT_EQ(recorder.next_boundary() % 10, 0);
  }
  // 4 intervals of 10 became 2 of 20 at 40; 4 of 20 became 2 of 40 at 80.
  EXPECT_EQ(recorder.next_boundary(), 120);
  ClientSeries series = recorder.Finish(95, 95, 190);
  EXPECT_EQ(series.interval_nanos, 40);
  EXPECT_THAT(series.sent, ElementsAre(40, 40, 15));
  EXPECT_THAT(series.received, ElementsAre(80, 80, 30));
  EXPECT_EQ(series.last_nanos, 15);
}

TEST(ClientSeriesTest, AnyReadingsAddUpToTheCountersDifferenceWithinTheBound) {
  ClientSeriesRecorder recorder(7, /*max_intervals=*/6);
  recorder.Start(3, 100, 200);
  uint64_t sent = 100, received = 200;
  for (int64_t t = 3, step = 1; t < 400; t += step, step = step % 13 + 2) {
    sent += static_cast<uint64_t>(step * 31 % 17);
    received += static_cast<uint64_t>(step * 7 % 5);
    recorder.Record(t, sent, received);
  }
  ClientSeries series = recorder.Finish(401, sent + 3, received);
  EXPECT_LE(series.sent.size(), 6u);
  EXPECT_EQ(series.sent.size(), series.received.size());
  EXPECT_EQ(Sum(series.sent), sent + 3 - 100);
  EXPECT_EQ(Sum(series.received), received - 200);
  EXPECT_EQ(series.interval_nanos, 7 * 16);
  EXPECT_EQ(series.last_nanos, 401 - 3 - 3 * 7 * 16);
}

TEST(ClientSeriesTest, AnIntervalLongerThanTimeCanCountIsOneIntervalForTheWholeRun) {
  ClientSeriesRecorder recorder(INT64_MAX);
  recorder.Start(5, 0, 0);
  EXPECT_EQ(recorder.next_boundary(), INT64_MAX);
  recorder.Record(50, 4, 4);
  ClientSeries series = recorder.Finish(100, 10, 9);
  EXPECT_THAT(series.sent, ElementsAre(10));
  EXPECT_THAT(series.received, ElementsAre(9));
  EXPECT_EQ(series.last_nanos, 95);
}

TEST(ClientSeriesTest, JsonIsOneLineInSeconds) {
  ClientSeries series;
  series.interval_nanos = 100'000'000;
  series.last_nanos = 43'217'891;
  series.sent = {1234, 1200, 7};
  series.received = {1200, 1234, 7};
  const std::string json = ClientSeriesJson(series);
  EXPECT_EQ(json,
            "{\"interval_s\": 0.1, \"last_s\": 0.043217891, \"sent\": [1234, 1200, 7], "
            "\"received\": [1200, 1234, 7]}");
  nlohmann::json parsed = nlohmann::json::parse(json);
  EXPECT_EQ(parsed["sent"].size(), 3u);
  EXPECT_EQ(ClientSeriesJson(ClientSeries{}),
            "{\"interval_s\": 0, \"last_s\": 0, \"sent\": [], \"received\": []}");
}

}  // namespace
}  // namespace netbench
