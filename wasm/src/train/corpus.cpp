// Story corpus generator: word lists, sentence templates with slots, a story planner that tracks
// who may be called "he"/"she", and the probe writer. Deterministic from (seed, split, index) using
// its own PRNG (xoshiro256**), so every platform produces the same text. Native only; it uses the
// BPE pre-tokenisation to estimate lengths but no trained tokenizer.
#include "train/corpus.hpp"

#include "model/bpe.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace lookback::corpus {

// ---- random numbers and hashing ----------------------------------------------------------------

namespace {

uint64_t mix64(uint64_t x) {  // splitmix64 finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class Rng {  // xoshiro256**, seeded through splitmix64
 public:
  explicit Rng(uint64_t seed) {
    for (auto& s : s_) s = seed = mix64(seed);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }  // [0, n)
  int between(int lo, int hi) { return lo + below(hi - lo + 1); }                     // [lo, hi]
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
  template <class T, size_t N>
  const T& pick(const T (&items)[N]) { return items[below(static_cast<int>(N))]; }
  template <class T>
  const T& pick(const std::vector<T>& items) { return items[below(static_cast<int>(items.size()))]; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

uint64_t hash_text(std::string_view s) {  // FNV-1a, then mixed
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return mix64(h);
}

// Hash bucket deciding which split may use a (hero, object) pair or a made-up name.
// Pairs: 0 -> probe, 1 -> validation, 2..15 -> train. Names: 0 -> probe only.
int pair_bucket(std::string_view hero, std::string_view object) {
  return static_cast<int>(hash_text(std::string(hero) + "|" + std::string(object)) % 16);
}
int name_bucket(std::string_view name) { return static_cast<int>(hash_text(name) % 16); }

uint64_t story_seed(uint64_t seed, Split split, uint64_t index, int attempt) {
  uint64_t h = mix64(seed);
  h = mix64(h ^ (0xA24BAED4963EE407ull * (static_cast<uint64_t>(split) + 1)));
  h = mix64(h ^ index);
  return mix64(h ^ (0x9FB21C651E98DF25ull * static_cast<uint64_t>(attempt)));
}

// ---- word lists ------------------------------------------------------------------------------

struct FirstName {
  const char* name;
  bool female;
};

const FirstName kNames[] = {
    {"Mia", true},    {"Lily", true},   {"Emma", true},   {"Ava", true},    {"Sophie", true}, {"Lucy", true},
    {"Anna", true},   {"Ella", true},   {"Zoe", true},    {"Chloe", true},  {"Ruby", true},   {"Rosie", true},
    {"Amy", true},    {"Sara", true},   {"Nora", true},   {"Ellie", true},  {"Hannah", true}, {"Leah", true},
    {"Maya", true},   {"Isla", true},   {"Alice", true},  {"Clara", true},  {"Julia", true},  {"Kate", true},
    {"Laura", true},  {"Lena", true},   {"Maria", true},  {"Nina", true},   {"Olivia", true}, {"Paula", true},
    {"Rita", true},   {"Sally", true},  {"Tina", true},   {"Vera", true},   {"Wendy", true},  {"Yara", true},
    {"Zara", true},   {"Bella", true},  {"Daisy", true},  {"Eva", true},    {"Fiona", true},  {"Gina", true},
    {"Holly", true},  {"Iris", true},   {"Jenny", true},  {"Kira", true},   {"Lola", true},   {"Molly", true},
    {"Nell", true},   {"Polly", true},  {"Rina", true},   {"Stella", true}, {"Tara", true},   {"Violet", true},
    {"Alma", true},   {"Beth", true},   {"Cara", true},   {"Dina", true},   {"Elsa", true},   {"Freya", true},
    {"Greta", true},  {"Heidi", true},  {"Ida", true},    {"Jane", true},   {"Lisa", true},   {"Mila", true},
    {"Nadia", true},  {"Olga", true},   {"Rosa", true},   {"Susie", true},  {"Tessa", true},  {"Zelda", true},
    {"Hazel", true},  {"Emily", true},  {"Amelia", true},
    {"Tom", false},   {"Ben", false},   {"Sam", false},   {"Max", false},   {"Leo", false},   {"Jack", false},
    {"Tim", false},   {"Finn", false},  {"Noah", false},  {"Liam", false},  {"Owen", false},  {"Luke", false},
    {"Adam", false},  {"Alex", false},  {"Dan", false},   {"Eli", false},   {"Felix", false}, {"Hugo", false},
    {"Ivan", false},  {"Jake", false},  {"Kai", false},   {"Levi", false},  {"Mark", false},  {"Nick", false},
    {"Oscar", false}, {"Paul", false},  {"Ray", false},   {"Ryan", false},  {"Theo", false},  {"Toby", false},
    {"Victor", false}, {"Zack", false}, {"Arlo", false},  {"Billy", false}, {"Carl", false},  {"David", false},
    {"Eddie", false}, {"Fred", false},  {"George", false}, {"Harry", false}, {"Henry", false}, {"Isaac", false},
    {"Jonah", false}, {"Kevin", false}, {"Lucas", false}, {"Milo", false},  {"Ned", false},   {"Oliver", false},
    {"Peter", false}, {"Rex", false},   {"Simon", false}, {"Ted", false},   {"Omar", false},  {"Vince", false},
    {"Wes", false},   {"Yusuf", false}, {"Aaron", false}, {"Bruno", false}, {"Caleb", false}, {"Dylan", false},
    {"Ethan", false}, {"Frank", false}, {"Gabe", false},  {"Hank", false},  {"Jesse", false}, {"Jim", false},
    {"Kyle", false},  {"Louis", false}, {"Marco", false}, {"Nate", false},  {"Otto", false},  {"Pedro", false},
    {"Rudy", false},  {"Seth", false},  {"Walter", false}, {"Elliot", false}, {"Bobby", false},
};

// Things a child can own, carry, put down and look for. None of these words appears in any other
// template or list, so a recall can only be answered by copying the early mention.
const char* const kObjects[] = {
    "doll", "kite", "ball", "book", "hat", "cup", "box", "drum", "teddy", "puzzle", "crayon", "pencil",
    "brush", "blanket", "pillow", "scarf", "glove", "boot", "sock", "basket", "bucket", "shovel", "spoon",
    "bowl", "plate", "jar", "bottle", "lamp", "candle", "clock", "ring", "necklace", "bracelet", "crown",
    "wand", "sword", "shield", "flag", "map", "key", "coin", "shell", "feather", "rope", "ribbon", "button",
    "marble", "whistle", "flute", "guitar", "violin", "trumpet", "harp", "camera", "radio", "torch", "lantern",
    "umbrella", "jacket", "coat", "sweater", "dress", "belt", "helmet", "mask", "cape", "backpack", "wallet",
    "purse", "notebook", "diary", "letter", "card", "poster", "sticker", "balloon", "puppet", "train", "truck",
    "boat", "plane", "rocket", "bike", "scooter", "skateboard", "sled", "wagon", "tent", "net", "pebble",
    "crystal", "gem", "pearl", "acorn", "trophy", "medal", "badge", "compass", "telescope", "magnet", "kettle",
    "teapot", "mug", "fork", "comb", "mirror", "towel", "apron", "quilt", "rattle", "pinwheel", "harmonica",
    "tambourine", "xylophone", "lunchbox", "hairbrush", "slipper", "mitten", "dinosaur", "yoyo", "envelope",
    "paintbox", "binoculars",
};

const char* const kPlaces[] = {
    "the park", "the beach", "the garden", "the forest", "the lake", "the river", "the farm", "the zoo",
    "the shop", "the market", "the library", "the school", "the playground", "the hill", "the meadow",
    "the pond", "the castle", "the cave", "the island", "the town square", "the village", "the bakery",
    "the museum", "the circus", "the fair", "the harbor", "the station", "the bridge", "the mountain",
    "the valley", "the barn", "the field", "the orchard", "the woods", "the camp", "the pool", "the toy shop",
    "the candy shop", "the old tower", "the jungle", "the desert", "the seaside", "the cliffs", "the kitchen",
    "the attic", "the cottage", "the fountain", "the lighthouse", "the bus stop", "the cafe", "the flower shop",
    "the pet shop", "the ice rink", "the greenhouse", "the stables", "the docks", "the treehouse",
    "the waterfall", "the windmill", "the sandpit",
};

struct CreatureKind {
  const char* kind;
  const char* motion;  // what it does when it first appears
};

const CreatureKind kCreatures[] = {
    {"dragon", "flew down from the sky"}, {"bird", "flew down"}, {"owl", "flew down from a tree"},
    {"fox", "ran out of the bushes"}, {"rabbit", "hopped out of the grass"}, {"frog", "jumped out of the water"},
    {"bear", "walked out of the trees"}, {"robot", "rolled over"}, {"fairy", "floated down"},
    {"turtle", "crawled out slowly"}, {"goblin", "jumped out from behind a rock"},
    {"troll", "stepped out from under a bridge"}, {"giant", "walked up"}, {"cat", "walked over"},
    {"puppy", "ran up"}, {"mouse", "peeked out of a hole"}, {"squirrel", "ran down a tree"},
    {"penguin", "waddled over"}, {"monkey", "swung down from a branch"}, {"snail", "crept out"},
    {"bee", "buzzed over"}, {"duck", "waddled out of the pond"}, {"lion", "came out of the tall grass"},
    {"elf", "jumped down from a tree"},
};

const char* const kCreatureAdj[] = {"small", "tiny", "big", "friendly", "funny", "shy", "little", "sleepy",
                                    "happy", "clever", "silly", "green", "purple", "golden", "fluffy", "old",
                                    "young", "gentle", "curious", "spotted"};
const char* const kCreatureVerb[] = {"smiled", "laughed", "waved", "did a little dance", "sang a funny song",
                                     "jumped up and down", "spun around", "told a joke", "bowed", "clapped",
                                     "sat down", "giggled", "nodded", "winked", "made a funny face",
                                     "hummed a tune"};
// Every first name has one habit, the same in every story ("Tom" always whistles), and these words
// appear in no other template or list. After "he"/"she" the habit can only be predicted by finding
// whom the pronoun means: the name's own token carries the habit.
const char* const kHabits[] = {"whistled", "sneezed", "blinked", "grinned", "shrugged", "sighed",
                               "stretched", "hiccuped", "snorted", "chuckled", "squeaked", "tiptoed",
                               "wiggled", "sniffed", "stomped", "twirled"};
constexpr int kHabitCount = static_cast<int>(sizeof(kHabits) / sizeof(kHabits[0]));

const char* const kCreatureTrait[] = {"kind", "funny", "shy", "clever", "gentle", "brave", "silly",
                                      "friendly", "wise", "quiet", "polite", "happy"};

struct Activity {
  const char* past;
  const char* base;
};

const Activity kActivities[] = {
    {"played on the swings", "play on the swings"}, {"ran around the garden", "run around the garden"},
    {"jumped in the puddles", "jump in the puddles"}, {"sang a happy song", "sing a happy song"},
    {"drew a picture of a house", "draw a picture of a house"},
    {"built a castle in the sand", "build a castle in the sand"}, {"looked at the clouds", "look at the clouds"},
    {"climbed a tall tree", "climb a tall tree"}, {"picked some flowers", "pick some flowers"},
    {"fed the ducks", "feed the ducks"}, {"danced in the grass", "dance in the grass"},
    {"chased the butterflies", "chase the butterflies"}, {"made a wish", "make a wish"},
    {"hid behind a tree", "hide behind a tree"}, {"slid down the slide", "slide down the slide"},
    {"splashed in the water", "splash in the water"}, {"rolled down the hill", "roll down the hill"},
    {"watched the ships", "watch the ships"}, {"looked for bugs", "look for bugs"},
    {"played hide and seek", "play hide and seek"}, {"skipped along the path", "skip along the path"},
    {"hummed a little tune", "hum a little tune"}, {"counted the birds", "count the birds"},
    {"played tag", "play tag"}, {"raced to the big tree", "race to the big tree"},
    {"sat on a bench", "sit on a bench"}, {"ate a snack", "eat a snack"},
    {"looked at the fish in the water", "look at the fish in the water"},
    {"made a daisy chain", "make a daisy chain"}, {"played a guessing game", "play a guessing game"},
    {"walked along the wall", "walk along the wall"}, {"threw leaves in the air", "throw leaves in the air"},
    {"listened to the birds", "listen to the birds"}, {"told funny stories", "tell funny stories"},
    {"made a little fort", "make a little fort"}, {"dug a hole in the sand", "dig a hole in the sand"},
};

struct Parent {
  const char* word;
  bool female;
};
const Parent kParents[] = {{"mom", true}, {"dad", false}, {"grandma", true},
                           {"grandpa", false}, {"aunt", true}, {"uncle", false}};

// Word lists for {NAME} slots.
const std::unordered_map<std::string, std::vector<const char*>>& word_lists() {
  static const std::unordered_map<std::string, std::vector<const char*>> lists = {
      {"FEEL", {"happy", "glad", "excited", "proud", "calm", "cheerful", "surprised", "curious", "brave",
                "thankful"}},
      {"FEELNEG", {"scared", "tired", "sad", "hungry", "sleepy", "nervous", "cold", "worried", "grumpy",
                   "bored"}},
      {"KIDADJ", {"little", "kind", "happy", "brave", "curious", "shy", "clever", "funny", "young", "sweet",
                  "cheerful", "gentle"}},
      {"DAYADJ", {"sunny", "warm", "cold", "windy", "bright", "quiet", "lovely", "cloudy", "snowy", "rainy"}},
      {"TOD", {"morning", "afternoon", "day", "evening"}},
      {"AGE", {"four", "five", "six", "seven", "eight", "nine"}},
      {"HOBBY", {"drawing", "singing", "running", "dancing", "painting", "swimming", "jumping", "climbing",
                 "building things", "baking", "counting stars"}},
      {"SUNADJ", {"warm", "bright", "hot", "low", "soft"}},
      {"SKY", {"blue", "grey", "clear", "pink", "pale"}},
      {"SMELL", {"flowers", "rain", "fresh bread", "the sea", "pine trees", "grass"}},
      {"COLOR", {"red", "blue", "yellow", "pink", "white", "purple", "orange"}},
      {"ANIMAL", {"cow", "goat", "pig", "hen", "sheep", "dog", "lamb", "deer", "crow", "beetle", "horse",
                  "goose"}},
      {"FOOD", {"an apple", "a sandwich", "some bread", "a pear", "some soup", "a cookie", "a banana",
                "some grapes", "a muffin", "some cheese", "a carrot", "some cake"}},
      {"GOOD", {"good", "great", "wonderful", "happy", "lovely", "fun", "long", "busy", "special"}},
      {"OADJ", {"red", "blue", "green", "yellow", "little", "big", "shiny", "soft", "old", "new", "pink",
                "purple", "tiny", "favorite", "small", "pretty", "golden", "striped"}},
  };
  return lists;
}

// Dialogue lines (no final punctuation; the template adds it). Only {PL}/{PLc} slots inside.
const char* const kLines[] = {
    "Let's go to {PL}", "I like this place", "This is fun", "I am hungry", "Look at the birds",
    "We should go home soon", "I can run fast", "The sky is so blue", "I want to play", "It is my turn",
    "You are my best friend", "Let's play a game", "I see a big tree", "Let's have a picnic",
    "My feet are tired", "I love the sun", "Let's race", "This is the best day", "I have an idea",
    "Let me help you", "We can do it", "I am not scared", "It is getting late", "Let's go home",
    "That was fun", "I want to see {PL}", "It is so quiet here", "Follow me", "Wait for me",
    "I can hear the birds", "I think it will rain", "Look at the sky",
};
const char* const kExclaims[] = {"Wow", "Yay", "Look", "Hooray", "Oh no", "Come on", "Watch me", "Hello",
                                 "Over here", "Let's go", "Hurry up", "Good morning", "Thank you",
                                 "Be careful", "I did it"};
const char* const kQuestions[] = {"Can we play", "Where are we going", "Do you want to play", "What is that",
                                  "Can I come too", "Is it time to go", "Who wants to race", "Are you hungry",
                                  "Do you like {PLc}", "Shall we go to {PL}", "What should we do now",
                                  "Can you help me", "Where do you live", "Are you my friend", "Is it far"};

// Made-up names are built from these syllables (onset + vowel + coda).
const char* const kOnsets[] = {"b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
                               "br", "dr", "gr", "kr", "pl", "tr", "sn", "fl", "gl", "bl", "th", "sh",
                               "ch", "j", "w", "h", "qu", "sk"};
const char* const kVowels[] = {"a", "e", "i", "o", "u", "a", "o", "i", "ee", "oo", "ai", "ou", "y"};
const char* const kCodas[] = {"", "", "", "", "n", "r", "l", "m", "x", "k", "s", "b", "nt", "p", "g", "z",
                              "sh", "rk"};

// ---- sentence templates --------------------------------------------------------------------------

enum Beat {
  kOpening, kObject, kFriend, kDistractor, kTravel, kActivity, kScene, kFeeling, kDialogue,
  kCreatureIntro, kCreatureAgain, kObjectAgain, kProblem, kRecall, kEnding, kSong, kSongAgain, kHabit, kBeatCount
};

struct TemplateDef {
  Beat beat;
  const char* text;
};

// Slots: {S} subject (name or he/she), {Sn} name, {So} him/her, {Sp} his/her; {X..} the other
// child the same way; {SX} "Mia and Tom"; {THEY}; {KID}/{XKID} girl/boy; {PAR} "her mom";
// {O} object, {aO} "a doll", {AO} "red doll", {aAO}; {D..} the friend's object likewise;
// {PL} a new place, {PLc} the current place; {C} made-up name, {CK} kind, {aCA} "a small",
// {CM} arrival, {CV} action, {CT} trait; {ACT}/{ACT2} activity (past), {ACTI} (base form);
// {LINE}/{EXCL}/{QUES} dialogue; other capitals name a word list.
const TemplateDef kTemplates[] = {
    // opening: introduces the hero
    {kOpening, "Once upon a time, there was a {KIDADJ} {KID} named {Sn}."},
    {kOpening, "{Sn} was a {KIDADJ} {KID} who lived near {PL}."},
    {kOpening, "One {DAYADJ} {TOD}, {Sn} woke up early."},
    {kOpening, "{Sn} loved to play at {PL}."},
    {kOpening, "There once was a {KID} called {Sn}."},
    {kOpening, "{Sn} lived in a little house by {PL}."},
    {kOpening, "It was a {DAYADJ} day, and {Sn} wanted to go outside."},
    {kOpening, "{Sn} was {AGE} years old."},
    {kOpening, "Every {TOD}, {Sn} went to {PL}."},
    {kOpening, "{Sn} woke up with a big smile on {Sp} face."},
    {kOpening, "{Sn} woke up and looked out of the window."},
    {kOpening, "Today was a special day for {Sn}."},
    {kOpening, "{Sn} lived with {Sp} family in a small town."},
    {kOpening, "In a little town, there lived a {KID} named {Sn}."},
    {kOpening, "{Sn} liked {HOBBY} more than anything."},
    {kOpening, "One day, {Sn} was playing in the yard."},
    {kOpening, "{Sn} was a {KIDADJ} {KID} with a big heart."},
    {kOpening, "Long ago, a {KID} named {Sn} lived near {PL}."},
    // the object's early mention (owner = hero)
    {kObject, "{S} took {Sp} {O} to {PL}."},
    {kObject, "{S} had {aAO} that {S} loved very much."},
    {kObject, "{S} found {aAO} under {Sp} bed."},
    {kObject, "{PAR} gave {So} {aAO}."},
    {kObject, "{S} got {aAO} for {Sp} birthday."},
    {kObject, "{S} picked up {Sp} {AO} and went outside."},
    {kObject, "{S} brought {Sp} {O} along."},
    {kObject, "{S} always carried {aAO} with {So}."},
    {kObject, "{S} made {aAO} at school."},
    {kObject, "{S} put {Sp} {O} by the door."},
    {kObject, "{S} held {Sp} new {O} in {Sp} hands."},
    {kObject, "The best thing {Sn} had was {aAO}."},
    {kObject, "{S} could not stop looking at {Sp} {AO}."},
    {kObject, "{S} took {Sp} {AO} everywhere."},
    {kObject, "{S} got {aAO} from {PAR}."},
    {kObject, "On the table, {S} saw {aAO} and took it."},
    {kObject, "{S} won {aAO} at the fair."},
    {kObject, "{S} showed everyone {Sp} {AO}."},
    {kObject, "{S} found {aAO} in the garden."},
    {kObject, "In {Sp} room, {S} had {aAO}."},
    {kObject, "{S} saw {aAO} on a bench and picked it up."},
    {kObject, "{PAR} bought {So} {aAO} at the market."},
    {kObject, "\"Look at my {O}!\" said {Sn}."},
    {kObject, "{S} made {aAO} with {Sp} own hands."},
    {kObject, "Grandma sent {So} {aAO} in the mail."},
    {kObject, "{S} wanted to play with {Sp} {AO} today."},
    {kObject, "{S} put {aAO} in {Sp} bag."},
    {kObject, "Under a tree, {S} found {aAO}."},
    // a friend joins (introduces X)
    {kFriend, "Then {S} met {Sp} friend {Xn}."},
    {kFriend, "{Xn} came over to play."},
    {kFriend, "At {PLc}, {S} saw {Sp} friend {Xn}."},
    {kFriend, "Soon, {Xn} ran up to {So}."},
    {kFriend, "{Xn}, a {KIDADJ} {XKID}, wanted to play too."},
    {kFriend, "{S} called {Sp} friend {Xn} to come and play."},
    {kFriend, "A {XKID} named {Xn} walked by and said hello."},
    {kFriend, "{S} knocked on the door of {Sp} friend {Xn}."},
    {kFriend, "{Xn} was waiting for {So} at the gate."},
    {kFriend, "{S} went to find {Sp} best friend, {Xn}."},
    {kFriend, "{Sn} and {Sp} friend {Xn} met at {PL}."},
    {kFriend, "{Xn} from next door came to say hello."},
    // the friend's own object (subject = friend)
    {kDistractor, "{S} had {aAD} with {So}."},
    {kDistractor, "{S} brought {Sp} {AD} too."},
    {kDistractor, "{S} showed {Xn} {Sp} {D}."},
    {kDistractor, "{S} was holding {aAD}."},
    // going places
    {kTravel, "{S} went to {PL}."},
    {kTravel, "Then {S} walked to {PL} with {Xn}."},
    {kTravel, "{THEY} went to {PL} together."},
    {kTravel, "{S} ran all the way to {PL}."},
    {kTravel, "After lunch, {S} went to {PL}."},
    {kTravel, "Next, {S} visited {PL}."},
    {kTravel, "{SX} went to {PL}."},
    {kTravel, "On the way to {PL}, {S} saw a {ANIMAL}."},
    {kTravel, "{S} wanted to see {PL}, so {S} went there."},
    {kTravel, "Soon {THEY} were at {PL}."},
    {kTravel, "{S} took the bus to {PL}."},
    {kTravel, "{S} looked around {PLc}."},
    {kTravel, "It was quiet at {PLc}."},
    {kTravel, "{PLc} was full of people."},
    {kTravel, "{S} and {Xn} walked to {PL} hand in hand."},
    {kTravel, "The path to {PL} was long, but {S} did not mind."},
    // playing
    {kActivity, "{S} {ACT}."},
    {kActivity, "{SX} {ACT}."},
    {kActivity, "{THEY} {ACT} together."},
    {kActivity, "Then {S} {ACT}."},
    {kActivity, "After that, {S} {ACT}."},
    {kActivity, "For a while, {S} {ACT}."},
    {kActivity, "{S} wanted to {ACTI}."},
    {kActivity, "{S} tried to {ACTI}, but it was hard."},
    {kActivity, "First {S} {ACT}, and then {S} {ACT2}."},
    {kActivity, "{S} loved to {ACTI}."},
    {kActivity, "{S} asked {Xn} to {ACTI} with {So}."},
    {kActivity, "{S} could {ACTI} all day."},
    {kActivity, "Later, {S} {ACT}."},
    {kActivity, "{S} smiled and {ACT}."},
    {kActivity, "It was fun to {ACTI} at {PLc}."},
    {kActivity, "{S} and {Xn} took turns to {ACTI}."},
    {kActivity, "{S} showed {Xn} how to {ACTI}."},
    // scenery (no character)
    {kScene, "The sun was {SUNADJ} and the sky was {SKY}."},
    {kScene, "A soft wind blew through the trees."},
    {kScene, "The grass was green and wet."},
    {kScene, "Birds sang in the trees."},
    {kScene, "It was a {DAYADJ} day."},
    {kScene, "Big white clouds moved across the sky."},
    {kScene, "The air smelled of {SMELL}."},
    {kScene, "There were {COLOR} flowers everywhere."},
    {kScene, "The water was cold and clear."},
    {kScene, "Everything was calm and still."},
    {kScene, "A {ANIMAL} was sleeping in the sun."},
    {kScene, "Some children were playing nearby."},
    {kScene, "Far away, a dog was barking."},
    {kScene, "The leaves on the trees were red and gold."},
    {kScene, "A little stream ran past {PLc}."},
    {kScene, "It was very quiet."},
    // feelings and small actions
    {kFeeling, "{S} felt {FEEL}."},
    {kFeeling, "{S} was very {FEEL}."},
    {kFeeling, "{S} smiled."},
    {kFeeling, "{S} laughed and laughed."},
    {kFeeling, "{S} clapped {Sp} hands."},
    {kFeeling, "{S} was a little {FEELNEG}."},
    {kFeeling, "{S} took a deep breath."},
    {kFeeling, "{S} sat down to rest."},
    {kFeeling, "{S} looked up at the sky."},
    {kFeeling, "{S} was so {FEEL} that {S} jumped up and down."},
    {kFeeling, "This made {So} feel {FEEL}."},
    {kFeeling, "{S} had never seen anything like it."},
    {kFeeling, "{S} shook {Sp} head."},
    {kFeeling, "{S} nodded."},
    {kFeeling, "{S} felt the warm sun on {Sp} face."},
    {kFeeling, "{S} yawned."},
    {kFeeling, "{S} giggled."},
    {kFeeling, "{S} gave {Xn} a big hug."},
    {kFeeling, "{S} waved to {Xn}."},
    {kFeeling, "{S} helped {Xn} get up."},
    {kFeeling, "{S} held {Xp} hand."},
    {kFeeling, "{S} felt a little {FEELNEG}, but {S} kept going."},
    // dialogue (speaker = subject)
    {kDialogue, "\"{LINE},\" said {Sn}."},
    {kDialogue, "{Sn} said, \"{LINE}.\""},
    {kDialogue, "\"{EXCL}!\" {S} shouted."},
    {kDialogue, "\"{QUES}?\" asked {Sn}."},
    {kDialogue, "{Sn} asked, \"{QUES}?\""},
    {kDialogue, "\"{LINE},\" {S} said with a smile."},
    {kDialogue, "{S} whispered, \"{LINE}.\""},
    {kDialogue, "{S} looked at {Xn} and said, \"{LINE}.\""},
    {kDialogue, "\"{LINE},\" {S} said to {Xn}."},
    {kDialogue, "\"{EXCL}!\" said {Sn}."},
    {kDialogue, "{S} called out, \"{EXCL}!\""},
    {kDialogue, "\"{QUES}?\" {S} asked {Xn}."},
    {kDialogue, "{Sn} cried, \"{EXCL}!\""},
    {kDialogue, "\"{LINE},\" said {Sn} happily."},
    {kDialogue, "\"{QUES}?\" {Xn} asked. \"Yes,\" said {Sn}."},
    {kDialogue, "{S} turned to {Xn}. \"{LINE},\" {S} said."},
    // a creature with a made-up name appears
    {kCreatureIntro, "Then {aCA} {CK} named {C} {CM}."},
    {kCreatureIntro, "Suddenly, {aCA} {CK} {CM}. Its name was {C}."},
    {kCreatureIntro, "At {PLc}, {S} met {aCA} {CK} called {C}."},
    {kCreatureIntro, "{S} saw {aCA} {CK}. The {CK} said, \"My name is {C}.\""},
    {kCreatureIntro, "Out of nowhere, {aCA} {CK} named {C} appeared."},
    {kCreatureIntro, "There was {aCA} {CK} there, and its name was {C}."},
    {kCreatureIntro, "{S} heard a noise. It was {aCA} {CK} named {C}."},
    {kCreatureIntro, "{aCA} {CK} named {C} lived near {PLc}."},
    {kCreatureIntro, "Behind a tree, {S} found {aCA} {CK} named {C}."},
    {kCreatureIntro, "{S} made a new friend, {aCA} {CK} named {C}."},
    {kCreatureIntro, "{aCA} {CK} came to say hello. \"I am {C},\" it said."},
    {kCreatureIntro, "{S} looked up and saw {aCA} {CK} called {C}."},
    {kCreatureIntro, "Just then, {aCA} {CK} {CM} and said, \"Hello, I am {C}.\""},
    // the made-up name comes back
    {kCreatureAgain, "\"Hello,\" said {C}."},
    {kCreatureAgain, "{C} {CV}."},
    {kCreatureAgain, "{S} played with {C} all afternoon."},
    {kCreatureAgain, "{C} wanted to be friends with {So}."},
    {kCreatureAgain, "\"{LINE},\" said {C}."},
    {kCreatureAgain, "{S} asked {C}, \"{QUES}?\""},
    {kCreatureAgain, "{C} showed {So} a secret path."},
    {kCreatureAgain, "\"Thank you, {C},\" said {Sn}."},
    {kCreatureAgain, "{S} waved to {C}."},
    {kCreatureAgain, "{C} was very {CT}."},
    {kCreatureAgain, "{S} and {C} {ACT}."},
    {kCreatureAgain, "{C} knew a lot about {PLc}."},
    {kCreatureAgain, "Everyone liked {C}."},
    {kCreatureAgain, "{C} laughed and said, \"{LINE}.\""},
    {kCreatureAgain, "\"Come with us, {C}!\" said {Sn}."},
    {kCreatureAgain, "{S} told {Xn} about {C}."},
    {kCreatureAgain, "{S} gave {C} a big smile."},
    {kCreatureAgain, "{C} sat next to {Sn}."},
    {kCreatureAgain, "The {CK} {C} {CV}."},
    {kCreatureAgain, "{S} said goodbye to {C}."},
    // the object again, between intro and recall (training stories only)
    {kObjectAgain, "{S} held the {O} tight."},
    {kObjectAgain, "{S} showed {Xn} {Sp} {O}."},
    {kObjectAgain, "{S} looked at {Sp} {O} again."},
    {kObjectAgain, "{S} did not want to lose the {O}."},
    {kObjectAgain, "{S} kept the {O} safe."},
    {kObjectAgain, "The {O} was still with {Sn}."},
    {kObjectAgain, "{S} put the {O} down for a moment."},
    {kObjectAgain, "{S} picked up the {O} again."},
    {kObjectAgain, "The {O} was in {Sp} hands all day."},
    {kObjectAgain, "{S} let {Xn} hold the {O}."},
    {kObjectAgain, "{S} smiled and looked at the {O}."},
    {kObjectAgain, "{S} thought about {Sp} {O}."},
    {kObjectAgain, "{S} told {PAR} about the {O}."},
    {kObjectAgain, "{S} wiped the {O} with {Sp} sleeve."},
    // the creature's song: made-up words sung once, then sung again later word for word
    {kSong, "{C} sang a funny song: \"{SONG}.\""},
    {kSong, "The {CK} knew some magic words: \"{SONG}.\""},
    {kSong, "\"{SONG},\" sang the {CK}."},
    {kSong, "The {CK} taught {So} a secret rhyme: \"{SONG}.\""},
    {kSongAgain, "{S} sang the song too: \"{SONG}.\""},
    {kSongAgain, "Later, {S} said the magic words again: \"{SONG}.\""},
    {kSongAgain, "{S} still remembered the rhyme: \"{SONG}.\""},
    {kSongAgain, "All the way home, {S} sang, \"{SONG}.\""},
    {kSongAgain, "\"{SONG},\" sang {Sn} happily."},
    // a character's habit ({SH}, {XH}): the word right after the subject
    {kHabit, "{S} {SH}."},
    {kHabit, "Then {S} {SH}."},
    {kHabit, "{S} {SH} and looked at {Xn}."},
    {kHabit, "{S} {SH}, as always."},
    {kHabit, "Suddenly, {S} {SH}."},
    {kHabit, "{S} {SH} again."},
    {kHabit, "When {S} saw {PLc}, {S} {SH}."},
    {kHabit, "{S} {SH} and smiled at {Xn}."},
    {kHabit, "{X} {XH} and waved at {Sn}."},
    {kHabit, "{Sn} stopped for a moment, and {S} {SH}."},
    {kHabit, "{Sn} looked around, then {S} {SH}."},
    {kHabit, "As {Sn} walked on, {S} {SH}."},
    {kHabit, "{Sn} sat down, and {S} {SH} twice."},
    {kHabit, "{S} {SH}, and {X} {XH}."},
    // small troubles
    {kProblem, "Then it started to rain, so {S} ran under a tree."},
    {kProblem, "{S} fell down and hurt {Sp} knee, but {S} did not cry."},
    {kProblem, "For a moment, {S} got lost, but then {S} found the way."},
    {kProblem, "A big dog barked, and {S} jumped."},
    {kProblem, "The path was long, and {S} got tired."},
    {kProblem, "{S} was hungry, so {S} ate {FOOD}."},
    {kProblem, "The sun went behind a cloud, and it got cold."},
    {kProblem, "{S} heard a loud noise and hid."},
    {kProblem, "{SX} had a small fight, but soon {THEY} were friends again."},
    {kProblem, "It got very windy, and {S} held on to a tree."},
    {kProblem, "{S} slipped on the wet grass, but {S} was fine."},
    {kProblem, "A bee buzzed around {Sp} head, and {S} ran away."},
    // the recall: {O} is the blank the model must fill by copying the early mention
    {kRecall, "At night, {S} put the {O} on {Sp} bed."},
    {kRecall, "When {S} got home, {S} put the {O} on the shelf."},
    {kRecall, "Before bed, {S} hugged the {O}."},
    {kRecall, "At the end of the day, {S} packed the {O} away."},
    {kRecall, "{S} was glad to still have the {O}."},
    {kRecall, "Back at home, {S} cleaned the {O}."},
    {kRecall, "That night, {S} slept next to the {O}."},
    {kRecall, "{S} looked for the {O} and found it on the floor."},
    {kRecall, "\"I love my {O},\" said {Sn}."},
    {kRecall, "{S} said, \"Where is my {O}?\""},
    {kRecall, "{S} smiled at the {O}."},
    {kRecall, "{S} put the {O} back in its place."},
    {kRecall, "{PAR} asked {Sn} about the {O}."},
    {kRecall, "{S} showed {PAR} the {O}."},
    {kRecall, "Then {S} remembered the {O}."},
    {kRecall, "{S} held the {O} all the way home."},
    {kRecall, "In the evening, {S} played with the {O} again."},
    {kRecall, "Finally, {S} took the {O} home."},
    {kRecall, "Before sleeping, {S} looked at the {O} one more time."},
    {kRecall, "\"Good night, {O},\" whispered {Sn}."},
    {kRecall, "Then {S} opened {Sp} bag and took out the {O}."},
    {kRecall, "{S} looked for {Sp} {O}."},
    {kRecall, "{S} picked up the {O}."},
    {kRecall, "{S} found the {O} under the table."},
    {kRecall, "{S} carried the {O} inside."},
    {kRecall, "{S} showed {PAR} the {O}."},
    {kRecall, "{S} gave {Xn} the {O}."},
    {kRecall, "{S} hugged {Sp} {O}."},
    {kRecall, "{S} held up the {O} for everyone to see."},
    {kRecall, "{S} cleaned {Sp} {O} with a cloth."},
    {kRecall, "{S} put the {O} in a safe place."},
    {kRecall, "Then {S} reached for the {O}."},
    {kRecall, "{S} ran to get the {O}."},
    {kRecall, "\"Can I see your {O}?\" asked {PAR}."},
    {kRecall, "{S} wrapped the {O} in a soft cloth."},
    {kRecall, "{PAR} found the {O} and gave it back."},
    {kRecall, "{S} played with {Sp} {O} until dinner."},
    {kRecall, "{S} dropped the {O}, then picked it up."},
    {kRecall, "After lunch, {S} brought the {O} to {Sp} room."},
    {kRecall, "{S} was happy, and {S} kissed the {O}."},
    {kRecall, "Later, {S} took the {O} to school."},
    {kRecall, "{S} checked the {O} one more time."},
    {kRecall, "{S} put away the {O}."},
    {kRecall, "{S} grabbed the {O} and ran outside."},
    {kRecall, "{S} lifted the {O} high above {Sp} head."},
    {kRecall, "{S} hid the {O} behind {Sp} back."},
    {kRecall, "\"Here is my {O},\" said {Sn}."},
    {kRecall, "{S} kept the {O} next to {Sp} bed."},
    {kRecall, "{S} looked at {Sp} {O} and smiled."},
    {kRecall, "{S} shared the {O} with {Xn}."},
    // endings
    {kEnding, "It was a {GOOD} day."},
    {kEnding, "The end."},
    {kEnding, "{S} went to sleep with a smile."},
    {kEnding, "{S} would never forget this day."},
    {kEnding, "What a day it was!"},
    {kEnding, "Then {S} fell asleep."},
    {kEnding, "{S} could not wait to play again."},
    {kEnding, "Everyone was happy."},
    {kEnding, "{S} knew it was the best day ever."},
    {kEnding, "{SX} were best friends."},
    {kEnding, "{S} dreamed of {C} that night."},
    {kEnding, "{S} and {Xn} said goodbye and went home."},
    {kEnding, "It was time to go home."},
};

constexpr int kTemplateCount = static_cast<int>(sizeof(kTemplates) / sizeof(kTemplates[0]));

// ---- compiled templates ----------------------------------------------------------------------------

enum class Slot {
  kLiteral, kS, kSn, kSo, kSp, kX, kXn, kXo, kXp, kSX, kThey, kKid, kXKid, kParent,
  kO, kaO, kAO, kaAO, kD, kaD, kAD, kaAD, kPlace, kPlaceNow,
  kC, kCK, kaCA, kCM, kCV, kCT, kSHabit, kXHabit, kSong, kAct, kAct2, kActBase, kLine, kExclaim, kQuestion, kList
};

struct Segment {
  Slot slot = Slot::kLiteral;
  std::string text;                             // literal text
  const std::vector<const char*>* list = nullptr;  // kList
};

struct Compiled {
  std::vector<Segment> segs;
  bool needs_friend = false, needs_creature = false, needs_object = false, needs_distractor = false;
  bool owner_before_object = false;  // the owner is named or pronouned before {O}
};

Slot slot_of(const std::string& name) {
  static const std::unordered_map<std::string, Slot> slots = {
      {"S", Slot::kS}, {"Sn", Slot::kSn}, {"So", Slot::kSo}, {"Sp", Slot::kSp}, {"X", Slot::kX},
      {"Xn", Slot::kXn}, {"Xo", Slot::kXo}, {"Xp", Slot::kXp}, {"SX", Slot::kSX}, {"THEY", Slot::kThey},
      {"KID", Slot::kKid}, {"XKID", Slot::kXKid}, {"PAR", Slot::kParent}, {"O", Slot::kO},
      {"aO", Slot::kaO}, {"AO", Slot::kAO}, {"aAO", Slot::kaAO}, {"D", Slot::kD}, {"aD", Slot::kaD},
      {"AD", Slot::kAD}, {"aAD", Slot::kaAD}, {"PL", Slot::kPlace}, {"PLc", Slot::kPlaceNow},
      {"C", Slot::kC}, {"CK", Slot::kCK}, {"aCA", Slot::kaCA}, {"CM", Slot::kCM}, {"CV", Slot::kCV},
      {"CT", Slot::kCT}, {"SH", Slot::kSHabit}, {"XH", Slot::kXHabit}, {"SONG", Slot::kSong},
      {"ACT", Slot::kAct}, {"ACT2", Slot::kAct2}, {"ACTI", Slot::kActBase},
      {"LINE", Slot::kLine}, {"EXCL", Slot::kExclaim}, {"QUES", Slot::kQuestion}};
  const auto it = slots.find(name);
  if (it != slots.end()) return it->second;
  if (word_lists().count(name)) return Slot::kList;
  throw std::logic_error("corpus template uses unknown slot {" + name + "}");
}

Compiled compile(const char* text) {
  Compiled c;
  const std::string s = text;
  bool owner_seen = false;
  for (size_t i = 0; i < s.size();) {
    if (s[i] != '{') {
      const size_t j = std::min(s.find('{', i), s.size());
      c.segs.push_back({Slot::kLiteral, s.substr(i, j - i), nullptr});
      i = j;
      continue;
    }
    const size_t close = s.find('}', i);
    const std::string name = s.substr(i + 1, close - i - 1);
    Segment seg{slot_of(name), "", nullptr};
    if (seg.slot == Slot::kList) seg.list = &word_lists().at(name);
    const char k = name[0];
    if (name == "SX" || name == "THEY" || name == "XKID" || (k == 'X' && name.size() <= 2)) c.needs_friend = true;
    if (name == "C") c.needs_creature = true;
    if (seg.slot == Slot::kS || seg.slot == Slot::kSn || seg.slot == Slot::kSp || seg.slot == Slot::kParent ||
        seg.slot == Slot::kSX)
      owner_seen = true;
    if (seg.slot == Slot::kO || seg.slot == Slot::kaO || seg.slot == Slot::kAO || seg.slot == Slot::kaAO) {
      c.needs_object = true;
      c.owner_before_object = owner_seen;
    }
    if (seg.slot == Slot::kD || seg.slot == Slot::kaD || seg.slot == Slot::kAD || seg.slot == Slot::kaAD)
      c.needs_distractor = true;
    c.segs.push_back(std::move(seg));
    i = close + 1;
  }
  return c;
}

struct Library {
  std::vector<Compiled> templates;                 // [kTemplateCount]
  std::vector<int> by_beat[kBeatCount];            // template ids per beat
  std::vector<Compiled> lines, exclaims, questions;
  std::unordered_set<std::string> words, lower_words;  // the lexicon
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void add_words(Library& lib, std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '{') {  // slot names are not words
      i = text.find('}', i) + 1;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(text[i]))) { ++i; continue; }
    size_t j = i;
    while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
    const std::string w(text.substr(i, j - i));
    lib.words.insert(w);
    lib.lower_words.insert(lower(w));
    i = j;
  }
}

void build_lexicon(Library& lib) {
  for (const auto& t : kTemplates) add_words(lib, t.text);
  for (const auto& n : kNames) add_words(lib, n.name);
  for (const char* w : kObjects) add_words(lib, w);
  for (const char* w : kPlaces) add_words(lib, w);
  for (const auto& c : kCreatures) { add_words(lib, c.kind); add_words(lib, c.motion); }
  for (const char* w : kCreatureAdj) add_words(lib, w);
  for (const char* w : kCreatureVerb) add_words(lib, w);
  for (const char* w : kCreatureTrait) add_words(lib, w);
  for (const char* w : kHabits) add_words(lib, w);
  for (const auto& a : kActivities) { add_words(lib, a.past); add_words(lib, a.base); }
  for (const auto& p : kParents) add_words(lib, p.word);
  for (const auto& [name, list] : word_lists())
    for (const char* w : list) add_words(lib, w);
  for (const char* w : kLines) add_words(lib, w);
  for (const char* w : kExclaims) add_words(lib, w);
  for (const char* w : kQuestions) add_words(lib, w);
  for (const char* w : {"a", "an", "and", "she", "he", "her", "him", "his", "they", "girl", "boy", "s"})
    add_words(lib, w);
}

const Library& library() {
  static const Library lib = [] {
    Library l;
    for (int i = 0; i < kTemplateCount; ++i) {
      l.templates.push_back(compile(kTemplates[i].text));
      l.by_beat[kTemplates[i].beat].push_back(i);
    }
    for (const char* t : kLines) l.lines.push_back(compile(t));
    for (const char* t : kExclaims) l.exclaims.push_back(compile(t));
    for (const char* t : kQuestions) l.questions.push_back(compile(t));
    build_lexicon(l);
    return l;
  }();
  return lib;
}

bool starts_with_vowel(std::string_view w) {
  return !w.empty() && std::string_view("aeiouAEIOU").find(w[0]) != std::string_view::npos;
}
std::string with_article(const std::string& phrase) { return (starts_with_vowel(phrase) ? "an " : "a ") + phrase; }

// ---- made-up names and the cast ----------------------------------------------------------------------

std::string made_up_word(Rng& rng, int syllables) {
  std::string w;
  for (int i = 0; i < syllables; ++i) {
    if (i > 0 || rng.chance(0.85)) w += rng.pick(kOnsets);
    w += rng.pick(kVowels);
    if (i + 1 == syllables || rng.chance(0.5)) w += rng.pick(kCodas);
  }
  w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
  return w;
}

// 2-3 syllables in 1-2 words ("Tavimo", "Zorbin Plax"); never a real word, reserved per split.
std::string made_up_name(Rng& rng, Split split) {
  const Library& lib = library();
  for (;;) {
    const int shape = rng.below(10);
    std::vector<std::string> words;
    if (shape < 3) words = {made_up_word(rng, 2)};
    else if (shape < 6) words = {made_up_word(rng, 3)};
    else if (shape < 8) words = {made_up_word(rng, 2), made_up_word(rng, 1)};
    else words = {made_up_word(rng, 1), made_up_word(rng, 2)};
    bool ok = true;
    for (const auto& w : words) ok = ok && w.size() >= 3 && !lib.lower_words.count(lower(w));
    if (!ok) continue;
    const std::string name = words.size() == 1 ? words[0] : words[0] + " " + words[1];
    if ((name_bucket(name) == 0) == (split == Split::probe)) return name;
  }
}

// A creature's song: 3-5 short made-up words ("zu brek tomi la"), none a real word.
std::string made_up_song(Rng& rng) {
  const Library& lib = library();
  std::string song;
  for (int i = 0, n = rng.between(3, 5); i < n;) {
    std::string w = lower(made_up_word(rng, rng.between(1, 2)));
    if (lib.lower_words.count(w)) continue;
    song += (i++ ? " " : "") + w;
  }
  song[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(song[0])));
  return song;
}

bool pair_allowed(Split split, int bucket) {
  switch (split) {
    case Split::probe: return bucket == 0;
    case Split::validation: return bucket == 1;
    default: return bucket >= 2;
  }
}

constexpr int kNameCount = static_cast<int>(sizeof(kNames) / sizeof(kNames[0]));
constexpr int kObjectCount = static_cast<int>(sizeof(kObjects) / sizeof(kObjects[0]));

// Estimate of the BPE token count of `text`, independent of any trained tokenizer: one token per
// pre-tokenisation chunk of a known word written after a space (such words become single tokens),
// two for a known word without the space (story start, after a quote), and for an invented word
// one per byte of its chunk (the tokenizer keeps those in pieces; this is an upper bound).
int estimate_tokens(std::string_view text) {
  int n = 0;
  for (std::string_view chunk : bpe_chunks(text)) {
    const bool spaced = chunk.size() > 1 && chunk[0] == ' ';
    std::string_view word = spaced ? chunk.substr(1) : chunk;
    if (!std::isalpha(static_cast<unsigned char>(word[0]))) n += 1;
    else if (!is_lexicon_word(word)) n += static_cast<int>(chunk.size());
    else n += spaced ? 1 : 2;
  }
  return n;
}

// ---- the story writer -------------------------------------------------------------------------------

enum class Case { kSubject, kObject, kPossessive };

struct Entity {
  std::string name;
  int gender = -1;  // 0 female, 1 male, -1 none (creatures)
};

// Renders templates into one story, tracking mentions so that a pronoun is written only when
// it is clear: the character was already named in this sentence with no other of its gender, or
// is the only one of its gender so far, or was in the previous sentence with no other of its gender.
class StoryWriter {
 public:
  StoryWriter(Rng& rng, Story& story) : rng_(rng), st_(story) {}

  int add_entity(const std::string& name, int gender) {
    ents_.push_back({name, gender});
    seen_.push_back(false);
    last_name_char_.push_back(-1);
    return static_cast<int>(ents_.size()) - 1;
  }

  // Cast and story state the slots read.
  int hero = -1, other = -1, creature = -1;
  std::string object, distractor, object_adj, distractor_adj, place, creature_kind, creature_adj,
      creature_motion, song;
  bool in_recall = false;
  int creature_mentions = 0;

  void sentence(int template_id, int subject, int other_child) {
    subj_ = subject;
    oth_ = other_child;
    if (!st_.text.empty()) st_.text += ' ';
    const size_t start = st_.text.size();
    cur_.clear();
    last_act_ = -1;
    render(library().templates[template_id].segs);
    const char c = st_.text[start];
    if (c >= 'a' && c <= 'z') st_.text[start] = static_cast<char>(c - 'a' + 'A');
    prev_ = cur_;
    st_.templates.push_back(template_id);
    for (size_t i = start; i < st_.text.size(); ++i) words_ += st_.text[i] == ' ';
    ++words_;
    tokens_ += estimate_tokens(std::string_view(st_.text).substr(start > 0 ? start - 1 : 0));
  }

  int words() const { return words_; }
  int tokens() const { return tokens_; }
  bool seen(int e) const { return e >= 0 && seen_[e]; }

 private:
  void render(const std::vector<Segment>& segs) {
    for (const auto& seg : segs) write_slot(seg);
  }

  void write_slot(const Segment& seg) {
    std::string& out = st_.text;
    const Library& lib = library();
    switch (seg.slot) {
      case Slot::kLiteral: out += seg.text; break;
      case Slot::kS: ref(subj_, Case::kSubject); break;
      case Slot::kSn: name(subj_); break;
      case Slot::kSo: ref(subj_, Case::kObject); break;
      case Slot::kSp: ref(subj_, Case::kPossessive); break;
      case Slot::kX: ref(oth_, Case::kSubject); break;
      case Slot::kXn: name(oth_); break;
      case Slot::kXo: ref(oth_, Case::kObject); break;
      case Slot::kXp: ref(oth_, Case::kPossessive); break;
      case Slot::kSX: name(subj_); out += " and "; name(oth_); break;
      case Slot::kThey: out += "they"; break;
      case Slot::kKid: out += ents_[subj_].gender == 0 ? "girl" : "boy"; break;
      case Slot::kXKid: out += ents_[oth_].gender == 0 ? "girl" : "boy"; break;
      case Slot::kParent: parent(); break;
      case Slot::kO: object_word(); break;
      case Slot::kaO: out += starts_with_vowel(object) ? "an " : "a "; object_word(); break;
      case Slot::kAO: out += object_adj + " "; object_word(); break;
      case Slot::kaAO: out += with_article(object_adj) + " "; object_word(); break;
      case Slot::kD: out += distractor; break;
      case Slot::kaD: out += with_article(distractor); break;
      case Slot::kAD: out += distractor_adj + " " + distractor; break;
      case Slot::kaAD: out += with_article(distractor_adj) + " " + distractor; break;
      case Slot::kPlace: place = rng_.pick(kPlaces); out += place; break;
      case Slot::kPlaceNow: out += place; break;
      case Slot::kC: creature_name(); break;
      case Slot::kCK: out += creature_kind; break;
      case Slot::kaCA: out += with_article(creature_adj); break;
      case Slot::kCM: out += creature_motion; break;
      case Slot::kCV: out += rng_.pick(kCreatureVerb); break;
      case Slot::kCT: out += rng_.pick(kCreatureTrait); break;
      case Slot::kSHabit: out += habit_of(ents_[subj_].name); break;
      case Slot::kXHabit: out += habit_of(ents_[oth_].name); break;
      case Slot::kSong: out += song; break;
      case Slot::kAct: out += activity().past; break;
      case Slot::kAct2: out += activity().past; break;
      case Slot::kActBase: out += activity().base; break;
      case Slot::kLine: render(rng_.pick(lib.lines).segs); break;
      case Slot::kExclaim: render(rng_.pick(lib.exclaims).segs); break;
      case Slot::kQuestion: render(rng_.pick(lib.questions).segs); break;
      case Slot::kList: out += rng_.pick(*seg.list); break;
    }
  }

  const Activity& activity() {  // a different activity each time within one sentence
    int a;
    do a = rng_.below(static_cast<int>(sizeof(kActivities) / sizeof(kActivities[0])));
    while (a == last_act_);
    last_act_ = a;
    return kActivities[a];
  }

  void object_word() {
    const int at = static_cast<int>(st_.text.size());
    st_.text += object;
    ++st_.object_mentions;
    if (in_recall && st_.recall_char < 0) st_.recall_char = at;  // the first recall is the labelled one
    else if (st_.object_char < 0) st_.object_char = at;
  }

  void creature_name() {
    st_.name_chars.push_back(static_cast<int>(st_.text.size()));
    st_.text += ents_[creature].name;
    ++creature_mentions;
    mention(creature);
  }

  void parent() {
    const Parent& p = rng_.pick(kParents);
    ref(subj_, Case::kPossessive);
    st_.text += std::string(" ") + p.word;
    const std::string key = ents_[subj_].name + "'s " + p.word;
    auto it = parents_.find(key);
    if (it == parents_.end()) it = parents_.emplace(key, add_entity(key, p.female ? 0 : 1)).first;
    mention(it->second);
  }

  void name(int e) {
    last_name_char_[e] = static_cast<int>(st_.text.size());
    st_.text += ents_[e].name;
    mention(e);
  }

  void mention(int e) {
    seen_[e] = true;
    cur_.push_back(e);
  }

  bool other_of_gender(const std::vector<int>& list, int e) const {
    for (int x : list)
      if (x != e && ents_[x].gender == ents_[e].gender) return true;
    return false;
  }

  bool sole_of_gender(int e) const {
    for (size_t x = 0; x < ents_.size(); ++x)
      if (static_cast<int>(x) != e && seen_[x] && ents_[x].gender == ents_[e].gender) return false;
    return true;
  }

  bool in_sentence(int e) const { return std::find(cur_.begin(), cur_.end(), e) != cur_.end(); }

  bool pronoun_clear(int e) const {
    if (!seen_[e] || ents_[e].gender < 0 || other_of_gender(cur_, e)) return false;
    if (in_sentence(e) || sole_of_gender(e)) return true;
    return std::find(prev_.begin(), prev_.end(), e) != prev_.end() && !other_of_gender(prev_, e);
  }

  // A reference to a character: pronoun when clear (and chosen), otherwise the name.
  void ref(int e, Case c) {
    const bool here = in_sentence(e);
    const double p = here ? 1.0 : c == Case::kSubject ? 0.5 : 0.85;  // same sentence: always a pronoun
    if (!pronoun_clear(e) || !rng_.chance(p)) {
      name(e);
      if (c == Case::kPossessive) st_.text += "'s";
      return;
    }
    static const char* const forms[2][3] = {{"she", "her", "her"}, {"he", "him", "his"}};
    const char* word = forms[ents_[e].gender][static_cast<int>(c)];
    PronounUse use;
    use.pronoun_char = static_cast<int>(st_.text.size());
    use.antecedent_char = last_name_char_[e];
    use.pronoun = word;
    use.name = ents_[e].name;
    use.subject = c == Case::kSubject;
    use.sole_of_gender = sole_of_gender(e);
    st_.pronouns.push_back(use);
    st_.text += word;
    cur_.push_back(e);
  }

  Rng& rng_;
  Story& st_;
  std::vector<Entity> ents_;
  std::vector<bool> seen_;
  std::vector<int> last_name_char_;
  std::unordered_map<std::string, int> parents_;
  std::vector<int> cur_, prev_;  // characters mentioned in this / the previous sentence
  int subj_ = -1, oth_ = -1, last_act_ = -1, words_ = 0, tokens_ = 0;
};

// ---- the story plan ---------------------------------------------------------------------------------

class StoryPlanner {
 public:
  StoryPlanner(Rng& rng, Split split, const StoryOptions& opt, Story& story)
      : rng_(rng), split_(split), opt_(opt), st_(story), w_(rng, story) {}

  void run() {
    cast();
    if (rng_.chance(0.85)) say(kOpening, w_.hero);
    if (rng_.chance(0.25)) filler();
    say(kObject, w_.hero);
    object_end_words_ = w_.words();
    middle();
    if (recall_) say(kRecall, w_.hero);
    for (int i = 0; recall_ && i < extra_recalls_ && fits(120, 30); ++i) {
      if (rng_.chance(0.5)) filler();
      say(kRecall, w_.hero);
    }
    if (rng_.chance(0.2) && fits(200, 50)) filler();
    if (rng_.chance(0.8)) say(kEnding, pick_subject());
  }

 private:
  void cast() {
    int h, o;
    do {
      h = rng_.below(kNameCount);
      o = rng_.below(kObjectCount);
    } while (!pair_allowed(split_, pair_bucket(kNames[h].name, kObjects[o])));
    w_.hero = w_.add_entity(kNames[h].name, kNames[h].female ? 0 : 1);
    w_.object = kObjects[o];
    w_.object_adj = rng_.pick(word_lists().at("OADJ"));
    st_.hero = kNames[h].name;
    st_.object = w_.object;
    if (rng_.chance(0.75)) {
      int f;
      do f = rng_.below(kNameCount);
      while (f == h);
      w_.other = w_.add_entity(kNames[f].name, kNames[f].female ? 0 : 1);
      if (opt_.allow_distractor && rng_.chance(0.25)) {
        do w_.distractor = rng_.pick(kObjects);
        while (w_.distractor == w_.object);
        w_.distractor_adj = rng_.pick(word_lists().at("OADJ"));
      }
    }
    if (opt_.force_creature || rng_.chance(0.65)) {
      st_.made_up_name = made_up_name(rng_, split_);
      w_.creature = w_.add_entity(st_.made_up_name, -1);
      const CreatureKind& k = rng_.pick(kCreatures);
      w_.creature_kind = k.kind;
      w_.creature_motion = k.motion;
      w_.creature_adj = rng_.pick(kCreatureAdj);
      creature_target_ = rng_.between(2, 4);
    }
    recall_ = opt_.force_recall || rng_.chance(0.9);
    object_again_ = opt_.allow_object_repeat && rng_.chance(0.35) ? 1 : 0;
    if (opt_.copy_practice) {
      if (opt_.allow_object_repeat) {
        object_again_ += rng_.between(0, 1);
        extra_recalls_ = rng_.between(0, 2);
      }
      if (w_.creature >= 0 && rng_.chance(0.6)) {
        w_.song = made_up_song(rng_);
        st_.song = w_.song;
        song_repeats_ = rng_.between(1, 2);
      }
    }
    target_words_ = rng_.between(opt_.min_words, opt_.max_words);
    w_.place = rng_.pick(kPlaces);
  }

  bool friend_in() const { return w_.other >= 0 && w_.seen(w_.other); }
  bool creature_in() const { return w_.creature >= 0 && w_.seen(w_.creature); }
  bool fits(int more_chars, int more_tokens) const {
    return static_cast<int>(st_.text.size()) + more_chars <= opt_.max_chars &&
           w_.tokens() + more_tokens <= opt_.max_tokens;
  }

  // Beats that must still happen before the recall, in the order they may be written.
  std::vector<Beat> required() const {
    std::vector<Beat> r;
    if (w_.other >= 0 && !friend_in()) r.push_back(kFriend);
    if (!w_.distractor.empty() && friend_in() && !distractor_done_) r.push_back(kDistractor);
    if (w_.creature >= 0 && !creature_in()) r.push_back(kCreatureIntro);
    if (creature_in() && w_.creature_mentions < std::min(creature_target_, 2)) r.push_back(kCreatureAgain);
    if (!w_.song.empty() && creature_in() && !song_sung_) r.push_back(kSong);
    if (song_sung_ && song_repeats_ > 0) r.push_back(kSongAgain);
    return r;
  }

  void middle() {
    for (int guard = 0; guard < 200; ++guard) {
      const auto req = required();
      const bool long_enough = w_.words() + 16 >= target_words_ || !fits(260, 75);
      const bool far_enough = w_.words() - object_end_words_ >= 14;
      if (long_enough && req.empty() && far_enough) break;
      if (!req.empty() && (long_enough || rng_.chance(0.3))) {
        const Beat beat = req[rng_.below(static_cast<int>(req.size()))];
        if (beat == kSongAgain && w_.words() - song_end_words_ < 10) filler();  // not straight after the song
        else say(beat, pick_subject());
        continue;
      }
      if (creature_in() && w_.creature_mentions < creature_target_ && rng_.chance(0.25)) {
        say(kCreatureAgain, pick_subject());
      } else if (object_again_ > 0 && rng_.chance(0.2)) {
        --object_again_;
        say(kObjectAgain, w_.hero);
      } else {
        filler();
      }
    }
  }

  void filler() {
    static const Beat beats[] = {kTravel, kTravel, kActivity, kActivity, kActivity, kScene, kFeeling,
                                 kFeeling, kDialogue, kDialogue, kDialogue, kProblem, kHabit, kHabit, kHabit, kHabit};
    say(rng_.pick(beats), pick_subject());
  }

  int pick_subject() { return friend_in() && rng_.chance(0.35) ? w_.other : w_.hero; }

  bool usable(const Compiled& t, Beat beat) const {
    if (t.needs_friend && beat != kFriend && !friend_in()) return false;
    if (t.needs_creature && beat != kCreatureIntro && (!creature_in() || w_.creature_mentions >= 4)) return false;
    if (beat == kRecall && !w_.distractor.empty() && !t.owner_before_object) return false;
    return true;
  }

  void say(Beat beat, int subject) {
    if (beat == kDistractor) {
      subject = w_.other;
      distractor_done_ = true;
    }
    if (beat == kObject || beat == kRecall || beat == kObjectAgain || beat == kFriend || beat == kOpening)
      subject = w_.hero;
    const int other = subject == w_.hero ? w_.other : w_.hero;
    const Library& lib = library();
    std::vector<int> choices;
    for (int id : lib.by_beat[beat])
      if (usable(lib.templates[id], beat)) choices.push_back(id);
    if (choices.empty()) return;
    if (beat == kSong) song_sung_ = true;
    if (beat == kSongAgain) --song_repeats_;
    w_.in_recall = beat == kRecall;
    w_.sentence(rng_.pick(choices), subject, other);
    w_.in_recall = false;
    if (beat == kSong) song_end_words_ = w_.words();
  }

  Rng& rng_;
  Split split_;
  const StoryOptions& opt_;
  Story& st_;
  StoryWriter w_;
  bool recall_ = false, distractor_done_ = false, song_sung_ = false;
  int song_repeats_ = 0, song_end_words_ = 0, extra_recalls_ = 0;
  int object_again_ = 0, creature_target_ = 0, target_words_ = 0, object_end_words_ = 0;
};

}  // namespace

// ---- public API -------------------------------------------------------------------------------------

const char* habit_of(std::string_view first_name) {
  return kHabits[hash_text("habit|" + std::string(first_name)) % kHabitCount];
}

Split parse_split(const std::string& name) {
  if (name == "train") return Split::train;
  if (name == "validation") return Split::validation;
  if (name == "probe") return Split::probe;
  throw std::invalid_argument("unknown split \"" + name + "\" (expected train, validation or probe)");
}

const char* split_name(Split split) {
  switch (split) {
    case Split::train: return "train";
    case Split::validation: return "validation";
    default: return "probe";
  }
}

Story make_story(uint64_t seed, Split split, uint64_t index, const StoryOptions& options) {
  for (int attempt = 0;; ++attempt) {
    Rng rng(story_seed(seed, split, index, attempt));
    Story story;
    StoryPlanner(rng, split, options, story).run();
    const bool fits = static_cast<int>(story.text.size()) <= options.max_chars &&
                      estimate_tokens(story.text) <= options.max_tokens;
    if (fits || attempt >= 50) return story;
  }
}

bool is_lexicon_word(std::string_view word) {
  const Library& lib = library();
  const std::string w(word);
  return lib.words.count(w) || lib.lower_words.count(lower(w));
}

int lexicon_size() { return static_cast<int>(library().words.size()); }
int template_count() { return kTemplateCount; }
std::string template_text(int id) {
  if (id < 0 || id >= kTemplateCount) throw std::out_of_range("template id " + std::to_string(id));
  return kTemplates[id].text;
}

// ---- probes -------------------------------------------------------------------------------------------

namespace {

int count_words(std::string_view s) {
  int n = 0;
  bool in_word = false;
  for (char c : s) {
    const bool space = c == ' ';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

StoryOptions probe_options() {
  StoryOptions o;
  o.force_recall = true;
  o.force_creature = true;
  o.allow_object_repeat = false;
  o.allow_distractor = false;
  o.copy_practice = false;
  return o;
}

bool recall_probe(const Story& s, uint64_t seed, Probe& p) {
  if (s.recall_char < 1 || s.object_char < 0 || s.object_mentions != 2) return false;
  p.kind = "recall";
  p.text = s.text.substr(0, s.recall_char - 1);
  p.answer = " " + s.object;
  p.answer_char = s.object_char;
  p.distance_words = count_words(p.text.substr(s.object_char + s.object.size()));
  Rng rng(mix64(seed));
  std::string swap;
  do swap = kObjects[rng.below(kObjectCount)];
  while (swap == s.object || starts_with_vowel(swap) != starts_with_vowel(s.object));
  p.swap_text = p.text;
  p.swap_text.replace(s.object_char, s.object.size(), swap);
  p.swap_answer = " " + swap;
  return p.distance_words >= 12;
}

bool pronoun_probe(const Story& s, uint64_t seed, Probe& p) {
  std::vector<const PronounUse*> clear;
  for (const auto& u : s.pronouns)
    if (u.subject && u.sole_of_gender && u.antecedent_char >= 0 && u.pronoun_char - u.antecedent_char >= 12)
      clear.push_back(&u);
  if (clear.empty()) return false;
  Rng rng(mix64(seed));
  const PronounUse& u = *clear[rng.below(static_cast<int>(clear.size()))];
  p.kind = "pronoun";
  p.text = s.text;
  p.pronoun_char = u.pronoun_char;
  p.antecedent_char = u.antecedent_char;
  p.pronoun = s.text.substr(u.pronoun_char, u.pronoun.size());
  p.name = u.name;
  return true;
}

bool name_probe(const Story& s, Probe& p) {
  if (s.name_chars.size() < 2) return false;
  p.kind = "name";
  p.text = s.text;
  p.name = s.made_up_name;
  p.first_char = s.name_chars[0];
  p.second_char = s.name_chars[1];
  return true;
}

}  // namespace

std::vector<Probe> make_probes(uint64_t seed, int per_kind) {
  std::vector<Probe> probes;
  const StoryOptions opt = probe_options();
  for (int kind = 0; kind < 3; ++kind) {
    int made = 0;
    for (uint64_t i = 0; made < per_kind; ++i) {
      const uint64_t index = (static_cast<uint64_t>(kind) << 40) + i;
      const Story s = make_story(seed, Split::probe, index, opt);
      Probe p;
      const uint64_t pseed = mix64(seed ^ mix64(index));
      const bool ok = kind == 0 ? recall_probe(s, pseed, p) : kind == 1 ? pronoun_probe(s, pseed, p) : name_probe(s, p);
      if (ok) {
        probes.push_back(std::move(p));
        ++made;
      }
    }
  }
  return probes;
}

std::string probe_to_json(const Probe& p) {
  nlohmann::ordered_json j;
  j["kind"] = p.kind;
  j["text"] = p.text;
  if (p.kind == "recall") {
    j["answer"] = p.answer;
    j["answer_char"] = p.answer_char;
    j["swap_text"] = p.swap_text;
    j["swap_answer"] = p.swap_answer;
    j["distance_words"] = p.distance_words;
  } else if (p.kind == "pronoun") {
    j["pronoun_char"] = p.pronoun_char;
    j["antecedent_char"] = p.antecedent_char;
    j["pronoun"] = p.pronoun;
    j["name"] = p.name;
  } else {
    j["name"] = p.name;
    j["first_char"] = p.first_char;
    j["second_char"] = p.second_char;
  }
  return j.dump();
}

}  // namespace lookback::corpus
