// The parsing floor of the Sluice benchmarks: simdjson's DOM parser (Debian's libsimdjson-dev)
// parses the same bytes N times into its tape, with no typed values made.
//
//     Benchmarks/Peers/build-simdjson.sh
//     Benchmarks/.build-peers/simdjson_floor FILE N
//
// FILE is read once into a padded buffer; one parser is reused for every run, as simdjson
// intends. After the last run it prints the active kernel, the size and the number of the
// top-level value's members or elements, so that a run is seen to have parsed something.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <simdjson.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: simdjson_floor FILE N\n");
        return 2;
    }
    char *end = nullptr;
    long long runs = std::strtoll(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0' || runs < 1) {
        std::fprintf(stderr, "simdjson_floor: N must be a positive integer\n");
        return 2;
    }
    simdjson::padded_string json;
    if (auto error = simdjson::padded_string::load(argv[1]).get(json)) {
        std::fprintf(stderr, "simdjson_floor: %s: %s\n", argv[1], simdjson::error_message(error));
        return 1;
    }
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    for (long long run = 0; run < runs; run++) {
        if (auto error = parser.parse(json).get(root)) {
            std::fprintf(stderr, "simdjson_floor: parsing failed: %s\n", simdjson::error_message(error));
            return 1;
        }
    }
    size_t count = 0;
    if (root.is_object()) {
        count = simdjson::dom::object(root).size();
    } else if (root.is_array()) {
        count = simdjson::dom::array(root).size();
    }
    std::printf("simdjson_floor kernel=%s bytes=%zu runs=%lld top_level=%zu\n",
                simdjson::get_active_implementation()->name().c_str(), json.size(), runs, count);
    return 0;
}
