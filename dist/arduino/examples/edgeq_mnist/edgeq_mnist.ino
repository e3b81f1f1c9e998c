/* SPDX-License-Identifier: Apache-2.0 */
// edgeq_mnist: runs the edgeq zoo's MNIST CNN (int8) on one handwritten 7
// and prints the ten class scores and the digit it sees.
//
// model_data.c and sample_data.c beside this sketch were written by
//   edgeq export --c --arena mnist_cnn_int8.tflite -o model_data.c
//   edgeq export --c --name sample_data sample.bin -o sample_data.c
// Export your own model the same way.
#include <edge.h>
#include <string.h>

extern "C" {
extern const uint8_t model_data[];
extern const size_t model_data_len;
extern uint8_t model_data_arena[];
extern const size_t model_data_arena_len;
extern const uint8_t sample_data[];
extern const size_t sample_data_len;
}

static edge_model model;

void setup() {
  Serial.begin(115200);
  while (!Serial) {
  }
  edge_status s = edge_model_init(&model, model_data, model_data_len, model_data_arena,
                                  model_data_arena_len);
  if (s != EDGE_OK) {
    Serial.print("edgeq: ");
    Serial.println(edge_model_error(&model));
    return;
  }
  edge_tensor in = edge_input(&model, 0);
  if (in.bytes != sample_data_len) {
    Serial.println("edgeq: the sample does not fit the model's input");
    return;
  }
  memcpy(in.data, sample_data, sample_data_len);
  if (edge_invoke(&model) != EDGE_OK) {
    Serial.println(edge_model_error(&model));
    return;
  }
  edge_tensor out = edge_output(&model, 0);
  const int8_t *scores = (const int8_t *)out.data;
  size_t best = 0;
  Serial.print("output:");
  for (size_t i = 0; i < out.bytes; i++) {
    Serial.print(" ");
    Serial.print((int)scores[i]);
    if (scores[i] > scores[best]) best = i;
  }
  Serial.println();
  Serial.print("digit: ");
  Serial.println((int)best);
}

void loop() {}
