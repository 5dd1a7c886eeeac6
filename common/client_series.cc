#include "common/client_series.h"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/clock.h"

namespace netbench {

std::string ClientSeriesJson(const ClientSeries& series) {
  return absl::StrFormat(
      "{\"interval_s\": %.9g, \"last_s\": %.9g, \"sent\": [%s], \"received\": [%s]}",
      NanosToSeconds(series.interval_nanos), NanosToSeconds(series.last_nanos),
      absl::StrJoin(series.sent, ", "), absl::StrJoin(series.received, ", "));
}

ClientSeriesRecorder::ClientSeriesRecorder(int64_t interval_nanos, int max_intervals)
    : interval_nanos_(interval_nanos), max_intervals_(std::max(2, max_intervals & ~1)) {}

void ClientSeriesRecorder::Start(int64_t start_nanos, uint64_t sent, uint64_t received) {
  boundary_ = reading_nanos_ = start_nanos;
  for (auto [track, value] : {std::pair{&sent_, sent}, std::pair{&received_, received}}) {
    track->at_boundary = track->at_reading = value;
    track->counts.clear();
  }
}

void ClientSeriesRecorder::Record(int64_t now_nanos, uint64_t sent, uint64_t received) {
  CloseIntervals(now_nanos, sent, received, now_nanos, /*inclusive=*/true);
  reading_nanos_ = now_nanos;
  sent_.at_reading = sent;
  received_.at_reading = received;
}

ClientSeries ClientSeriesRecorder::Finish(int64_t end_nanos, uint64_t sent, uint64_t received) {
  CloseIntervals(end_nanos, sent, received, end_nanos, /*inclusive=*/false);
  // A reading that fell on the end closed an interval there: it is the last one, not followed by
  // one of no length.
  if (end_nanos == boundary_ && !sent_.counts.empty()) {
    boundary_ -= interval_nanos_;
    for (Track* track : {&sent_, &received_}) {
      track->at_boundary -= track->counts.back();
      track->counts.pop_back();
    }
  }
  ClientSeries series;
  series.interval_nanos = interval_nanos_;
  series.last_nanos = end_nanos - boundary_;
  for (auto [track, value] : {std::pair{&sent_, sent}, std::pair{&received_, received}}) {
    if (value >= track->at_boundary) {
      track->counts.push_back(value - track->at_boundary);
      continue;
    }
    // The counter went back (a session run again from its start takes back what it had counted):
    // the intervals that counted it give it back, latest first, so that the sum still holds.
    uint64_t excess = track->at_boundary - value;
    for (size_t i = track->counts.size(); i > 0 && excess > 0; --i) {
      const uint64_t taken = std::min(track->counts[i - 1], excess);
      track->counts[i - 1] -= taken;
      excess -= taken;
    }
    track->counts.push_back(0);
  }
  series.sent = std::move(sent_.counts);
  series.received = std::move(received_.counts);
  return series;
}

void ClientSeriesRecorder::CloseIntervals(int64_t now_nanos, uint64_t sent, uint64_t received,
                                          int64_t until_nanos, bool inclusive) {
  while (next_boundary() < until_nanos || (inclusive && next_boundary() == until_nanos)) {
    const int64_t boundary = next_boundary();
    // Every boundary up to the last reading is closed, so the boundary lies after that reading and
    // no later than this one: 0 < part <= whole.
    const int64_t part = boundary - reading_nanos_;
    const int64_t whole = now_nanos - reading_nanos_;
    CloseOne(sent_, sent, part, whole);
    CloseOne(received_, received, part, whole);
    boundary_ = boundary;
    if (static_cast<int>(sent_.counts.size()) == max_intervals_) {
      // boundary_ is the start plus a whole number of intervals, and an even one: the doubled
      // intervals begin at the start too.
      Merge(sent_);
      Merge(received_);
      interval_nanos_ *= 2;
    }
  }
}

void ClientSeriesRecorder::CloseOne(Track& track, uint64_t now_value, int64_t part, int64_t whole) {
  uint64_t value = now_value;
  if (now_value > track.at_reading && part < whole) {
    // The counter's rise shared by time, rounded down; in 128 bits, as a rise of many messages
    // over a long sleep would overflow 64.
    const unsigned __int128 rise = now_value - track.at_reading;
    value = track.at_reading + static_cast<uint64_t>(rise * static_cast<uint64_t>(part) /
                                                     static_cast<uint64_t>(whole));
  }
  // A counter that went back is held where it was; Finish gives the difference back.
  value = std::max(value, track.at_boundary);
  track.counts.push_back(value - track.at_boundary);
  track.at_boundary = value;
}

void ClientSeriesRecorder::Merge(Track& track) {
  const size_t half = track.counts.size() / 2;
  for (size_t i = 0; i < half; ++i) track.counts[i] = track.counts[2 * i] + track.counts[2 * i + 1];
  track.counts.resize(half);
}

}  // namespace netbench
