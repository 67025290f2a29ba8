// Running a BERT-layout encoder over many inputs (tfm-encode -m BERT_DIR): batches of similar
// length, padding and masks, one record per input in the caller's order, as encode_sources
// does for the translation models' encoder.
#pragma once

#include <vector>

#include <xtensor/xtensor.hpp>

#include "tfm/decode/translator.hpp"
#include "tfm/model/bert.hpp"

namespace tfm {

// The last layer's states [S_i,D] of each input (an empty input: [0,D]); capture as in
// encode_sources.
std::vector<xt::xtensor<float, 2>> encode_bert(const BertModel& m, const std::vector<BertInput>& inputs, std::int64_t pad_id,
                                               std::size_t batch_size, EncodedCapture* capture = nullptr);

}  // namespace tfm
