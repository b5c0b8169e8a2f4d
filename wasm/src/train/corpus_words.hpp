// The corpus generator's word lists (data only): first names with their gender, things by kind with the
// verbs that fit them, places, creatures, activities, parents, the lists {NAME} slots draw from, dialogue
// lines and the syllables of made-up names. Internal to the generator; the sentence templates are in
// corpus_templates.hpp.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

namespace lookback::corpus::detail {

struct FirstName {
  const char* name;
  bool female;
};

inline const FirstName kNames[] = {
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

// Things a child can own, carry, put down and look for, by kind. A kind's uses are the verbs that only
// fit its things ("ate" an apple, "rang" a bell), so a recall cue like "she ate her" picks the one thing
// of that kind among several in the story. No thing word appears in any other template or list (checked
// when the library is built), so a recall can only be answered by copying an earlier mention.
struct Use {
  const char* past;  // "took a bite of"
  const char* base;  // "take a bite of"
};

struct Kind {
  const char* name;
  std::vector<Use> uses;
  std::vector<const char*> things;
  std::vector<const char*> adjectives{};  // empty: the general object adjectives (OADJ)
  const char* measure = nullptr;        // "glass of": "a glass of milk"
};

inline const std::vector<Kind>& kinds() {
  static const std::vector<Kind> k = {
      {"cuddly", {{"hugged", "hug"}, {"cuddled", "cuddle"}, {"kissed", "kiss"}, {"played with", "play with"}},
       {"doll", "teddy", "puppet", "dinosaur", "bunny", "panda", "elephant", "giraffe", "kitten", "koala", "tiger", "unicorn", "hippo",
        "walrus", "octopus", "dolly"}},
      {"game", {{"played with", "play with"}, {"spun", "spin"}},
       {"puzzle", "yoyo", "marble", "pinwheel", "rattle", "spinner", "top", "jigsaw", "slinky", "gyroscope",
        "dreidel", "domino", "rubik"}},
      {"container", {{"opened", "open"}, {"closed", "close"}, {"filled", "fill"}, {"emptied", "empty"}},
       {"box", "basket", "bucket", "jar", "lunchbox", "backpack", "purse", "wallet", "suitcase", "chest", "tin",
        "pouch", "crate", "trunk", "satchel", "sack", "bin", "envelope", "drawer", "cooler", "hamper",
        "locket", "shoebox", "toolbox", "case"}},
      {"food", {{"ate", "eat"}, {"took a bite of", "take a bite of"}, {"shared", "share"}, {"tasted", "taste"}},
       {"apple", "pear", "cookie", "muffin", "banana", "sandwich", "cupcake", "plum", "peach", "pie", "carrot",
        "cracker", "donut", "pancake", "lollipop", "cherry", "strawberry", "biscuit", "pretzel", "waffle", "bagel", "burrito", "taco", "popsicle",
        "mango", "kiwi", "melon", "cake", "brownie", "sausage", "egg", "toast", "croissant",
        "dumpling", "noodle", "meatball", "cucumber", "tomato", "potato", "scone", "chocolate",
        "icecream", "doughnut", "apricot", "lime", "radish", "turnip"},
       {"big", "little", "sweet", "fresh", "yummy", "tasty", "small", "warm"}},
      {"drink", {{"drank", "drink"}, {"sipped", "sip"}, {"finished", "finish"}},
       {"milk", "juice", "lemonade", "cocoa", "tea", "smoothie", "milkshake", "soda", "broth",
        "punch", "cider"},
       {"warm", "cold", "sweet", "fresh", "hot", "pink"}, "glass of"},
      {"ride", {{"rode", "ride"}, {"pushed", "push"}, {"parked", "park"}},
       {"bike", "scooter", "skateboard", "sled", "wagon", "tricycle", "pony", "unicycle", "cart", "toboggan",
        "hoverboard"}},
      {"vehicle", {{"pushed", "push"}, {"rolled", "roll"}, {"zoomed", "zoom"}},
       {"truck", "train", "tractor", "bulldozer", "racecar", "firetruck", "van", "jeep", "digger", "taxi",
        "ambulance", "locomotive"}},
      {"boat", {{"sailed", "sail"}, {"floated", "float"}, {"let go of", "let go of"}},
       {"boat", "raft", "canoe", "sailboat", "yacht", "dinghy", "submarine", "kayak", "tugboat"}},
      {"wear", {{"put on", "put on"}, {"wore", "wear"}, {"took off", "take off"}},
       {"hat", "scarf", "coat", "jacket", "sweater", "dress", "helmet", "cape", "mask", "apron", "crown",
        "necklace", "bracelet", "belt", "cap", "vest", "raincoat", "boot", "glove", "mitten", "slipper", "shoe", "sock", "sandal", "hoodie",
        "bonnet", "beret", "tutu", "poncho", "overalls", "tie", "bow", "ribbon", "earmuffs", "sunhat",
        "cardigan", "pajamas", "costume", "tiara", "uniform", "wellies"}},
      {"music", {{"played", "play"}, {"practiced", "practice"}, {"tuned", "tune"}},
       {"drum", "flute", "guitar", "violin", "trumpet", "harp", "harmonica", "tambourine", "xylophone", "piano",
        "banjo", "cello", "ukulele", "recorder", "keyboard", "maraca", "triangle", "bongo", "clarinet",
        "accordion", "saxophone"}},
      {"chime", {{"rang", "ring"}}, {"bell", "gong", "chime", "doorbell", "handbell", "cowbell"}},
      {"blow", {{"blew", "blow"}, {"tooted", "toot"}}, {"whistle", "horn", "kazoo", "bugle", "pipe", "conch", "dandelion"}},
      {"balloon", {{"blew up", "blow up"}, {"popped", "pop"}}, {"balloon"}},
      {"read", {{"read", "read"}, {"opened", "open"}, {"looked through", "look through"}},
       {"book", "letter", "map", "comic", "magazine", "diary", "notebook", "storybook", "postcard", "card", "atlas", "newspaper", "journal",
        "album", "recipe", "poem", "scroll", "note", "invitation", "guidebook", "songbook"}},
      {"throw", {{"threw", "throw"}, {"caught", "catch"}, {"tossed", "toss"}},
       {"ball", "stick", "frisbee", "beanbag", "boomerang", "snowball", "dodgeball", "football", "baseball",
        "hoop", "pinecone", "dart", "shuttlecock", "softball"}},
      {"fly", {{"flew", "fly"}, {"launched", "launch"}}, {"kite", "plane", "rocket", "glider", "drone", "helicopter", "airplane",
        "jet", "parachute"}},
      {"plant", {{"planted", "plant"}, {"watered", "water"}},
       {"seed", "bulb", "sapling", "seedling", "acorn", "tulip", "sunflower", "cactus", "bean", "rosebush",
        "daffodil", "fern", "herb", "bush", "pip", "sprout"}},
      {"light", {{"lit", "light"}, {"turned on", "turn on"}, {"switched on", "switch on"}},
       {"lamp", "candle", "torch", "lantern", "flashlight", "nightlight", "fire", "campfire", "sparkler",
        "headlamp", "glowstick"}},
      {"draw", {{"drew with", "draw with"}, {"colored with", "color with"}},
       {"crayon", "pencil", "chalk", "marker", "pen", "brush", "paintbrush", "crayons", "pencils",
        "quill", "charcoal", "stamp", "sponge", "roller"}},
      {"keepsake", {{"polished", "polish"}, {"rubbed", "rub"}},
       {"coin", "gem", "pearl", "shell", "pebble", "crystal", "medal", "badge", "trophy", "jewel", "key", "stone", "button",
        "feather", "starfish", "fossil", "diamond", "brooch", "bead",
        "compass"}},
      {"dish", {{"washed", "wash"}, {"dried", "dry"}},
       {"spoon", "fork", "cup", "bowl", "plate", "mug", "kettle", "teapot", "pan", "ladle", "saucer", "jug", "pot", "tray", "bottle",
        "whisk", "knife", "chopsticks", "colander", "sieve"}},
      {"bedding", {{"folded", "fold"}, {"shook out", "shake out"}},
       {"blanket", "pillow", "quilt", "towel", "cushion", "sheet", "duvet", "rug", "mat",
        "shawl", "tablecloth", "bedspread", "hammock", "napkin"}},
      {"shade", {{"opened", "open"}, {"closed", "close"}}, {"umbrella", "parasol", "tent", "sunshade", "canopy"}},
      {"lens", {{"looked through", "look through"}, {"peeked through", "peek through"}},
       {"telescope", "magnifier", "periscope", "kaleidoscope", "spyglass", "binoculars", "microscope",
        "goggles", "camera"}},
      {"tool", {{"dug with", "dig with"}, {"swept with", "sweep with"}},
       {"shovel", "rake", "broom", "spade", "trowel", "hoe", "mop", "scoop", "pickaxe"}},
      {"fixit", {{"fixed the fence with", "fix the fence with"}, {"banged the nail with", "bang the nail with"}},
       {"hammer", "pliers", "screwdriver", "wrench", "mallet"}},
      {"fishing", {{"fished with", "fish with"}, {"cast", "cast"}}, {"net"}},
      {"sprinkle", {{"watered the flowers with", "water the flowers with"}, {"sprayed", "spray"}},
       {"hose", "sprinkler"}},
      {"puzzle", {{"started", "start"}, {"finished", "finish"}, {"solved", "solve"}},
       {"crossword", "maze", "riddle", "sudoku"}},
      {"bake", {{"baked", "bake"}, {"mixed", "mix"}, {"frosted", "frost"}, {"decorated", "decorate"}},
       {"batter", "gingerbread", "pastry", "pizza"}},
  };
  return k;
}

struct Thing {
  const char* word;
  int kind;
};

// Every thing of every kind, in table order.
inline const std::vector<Thing>& all_things() {
  static const std::vector<Thing> t = [] {
    std::vector<Thing> out;
    for (size_t k = 0; k < kinds().size(); ++k)
      for (const char* w : kinds()[k].things) out.push_back({w, static_cast<int>(k)});
    return out;
  }();
  return t;
}

inline const char* const kPlaces[] = {
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

inline const CreatureKind kCreatures[] = {
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

inline const char* const kCreatureAdj[] = {"small", "tiny", "big", "friendly", "funny", "shy", "little", "sleepy",
                                    "happy", "clever", "silly", "green", "purple", "golden", "fluffy", "old",
                                    "young", "gentle", "curious", "spotted"};
inline const char* const kCreatureVerb[] = {"smiled", "laughed", "waved", "did a little dance", "sang a funny song",
                                     "jumped up and down", "spun around", "told a joke", "bowed", "clapped",
                                     "sat down", "giggled", "nodded", "winked", "made a funny face",
                                     "hummed a tune"};
// Every first name has one habit, the same in every story ("Tom" always whistles), and these words
// appear in no other template or list. After "he"/"she" the habit can only be predicted by finding
// whom the pronoun means: the name's own token carries the habit.
inline const char* const kHabits[] = {"whistled", "sneezed", "blinked", "grinned", "shrugged", "sighed",
                               "stretched", "hiccuped", "snorted", "chuckled", "squeaked", "tiptoed",
                               "wiggled", "sniffed", "stomped", "twirled"};
inline constexpr int kHabitCount = static_cast<int>(sizeof(kHabits) / sizeof(kHabits[0]));

inline const char* const kCreatureTrait[] = {"kind", "funny", "shy", "clever", "gentle", "brave", "silly",
                                      "friendly", "wise", "quiet", "polite", "happy"};

struct Activity {
  const char* past;
  const char* base;
};

inline const Activity kActivities[] = {
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
inline const Parent kParents[] = {{"mom", true}, {"dad", false}, {"grandma", true},
                           {"grandpa", false}, {"aunt", true}, {"uncle", false}};

// Word lists for {NAME} slots.
inline const std::unordered_map<std::string, std::vector<const char*>>& word_lists() {
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
      {"COLOR", {"red", "blue", "yellow", "pink", "white", "purple", "orange", "green", "brown", "black", "silver"}},
      {"SIZE", {"little", "big", "small", "tiny", "old", "new", "soft", "shiny", "pretty", "round", "long"}},
      {"ANIMAL", {"cow", "goat", "pig", "hen", "sheep", "dog", "lamb", "deer", "crow", "beetle", "horse",
                  "goose"}},
      {"FOOD", {"some bread", "some soup", "some grapes", "some cheese", "some rice", "some nuts",
                "some berries", "a snack"}},
      {"GOOD", {"good", "great", "wonderful", "happy", "lovely", "fun", "long", "busy", "special"}},
      // a habit's tail and lead: the habit sentence varies around the habit word
      {"HT", {"", "", "", " again", " twice", " loudly", " softly", " a little", " once more", " for a while",
              " very quietly", " without a word", " as usual", " three times", " all of a sudden"}},
      {"HL", {"After a while, ", "Just then, ", "At that moment, ", "Right then, ", "Soon ",
              "All at once, ", "Later, ", "For no reason, ", "Out of the blue, "}},
      {"FEELWORD", {"felt a bit silly", "was thinking hard", "was still smiling", "felt the wind",
                    "heard a bird", "stood very still", "laughed"}},
      {"OADJ", {"red", "blue", "green", "yellow", "little", "big", "shiny", "soft", "old", "new", "pink",
                "purple", "tiny", "favorite", "small", "pretty", "golden", "striped"}},
  };
  return lists;
}

// Dialogue lines (no final punctuation; the template adds it). Only {PL}/{PLc} slots inside.
inline const char* const kLines[] = {
    "Let's go to {PL}", "I like this place", "This is fun", "I am hungry", "Look at the birds",
    "We should go home soon", "I can run fast", "The sky is so blue", "I want to play", "It is my turn",
    "You are my best friend", "Let's play a game", "I see a big tree", "Let's have a picnic",
    "My feet are tired", "I love the sun", "Let's race", "This is the best day", "I have an idea",
    "Let me help you", "We can do it", "I am not scared", "It is getting late", "Let's go home",
    "That was fun", "I want to see {PL}", "It is so quiet here", "Follow me", "Wait for me",
    "I can hear the birds", "I think it will rain", "Look at the sky",
};
inline const char* const kExclaims[] = {"Wow", "Yay", "Look", "Hooray", "Oh no", "Come on", "Watch me", "Hello",
                                 "Over here", "Let's go", "Hurry up", "Good morning", "Thank you",
                                 "Be careful", "I did it"};
inline const char* const kQuestions[] = {"Can we play", "Where are we going", "Do you want to play", "What is that",
                                  "Can I come too", "Is it time to go", "Who wants to race", "Are you hungry",
                                  "Do you like {PLc}", "Shall we go to {PL}", "What should we do now",
                                  "Can you help me", "Where do you live", "Are you my friend", "Is it far"};

// Made-up names are built from these syllables (onset + vowel + coda).
inline const char* const kOnsets[] = {"b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
                               "br", "dr", "gr", "kr", "pl", "tr", "sn", "fl", "gl", "bl", "th", "sh",
                               "ch", "j", "w", "h", "qu", "sk"};
inline const char* const kVowels[] = {"a", "e", "i", "o", "u", "a", "o", "i", "ee", "oo", "ai", "ou", "y"};
inline const char* const kCodas[] = {"", "", "", "", "n", "r", "l", "m", "x", "k", "s", "b", "nt", "p", "g", "z",
                              "sh", "rk"};

inline constexpr int kNameCount = static_cast<int>(sizeof(kNames) / sizeof(kNames[0]));
inline int thing_count() { return static_cast<int>(all_things().size()); }

}  // namespace lookback::corpus::detail
