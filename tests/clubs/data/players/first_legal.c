/* A clubs player in C, to show that clubhub runs any program that follows clubs.md.
 * Usage: first_legal N ID. It plays the first card of its hand (kept in the order the hub
 * sent it) that follows the led suit, else the first card of its hand. Little checking. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    char hand[52][3];
    char line[256];
    int count = 0;
    char led = 0;
    (void)argv;
    if (argc != 3) {
        fputs("Usage: player number_of_players myid\n", stderr);
        return 1;
    }
    fputs("-", stdout);
    fflush(stdout);
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "newround ", 9) == 0) {
            count = 0;
            const char *p = line + 9;
            while (count < 52 && p[0] && p[1]) {
                hand[count][0] = p[0];
                hand[count][1] = p[1];
                hand[count][2] = '\0';
                count++;
                if (p[2] != ',') break;
                p += 3;
            }
            led = 0;
        } else if (strcmp(line, "newtrick") == 0 || strcmp(line, "yourturn") == 0) {
            int pick = 0;
            if (line[0] == 'y') {
                for (int i = 0; i < count; i++) {
                    if (hand[i][1] == led) {
                        pick = i;
                        break;
                    }
                }
            }
            if (count == 0) return 5;
            printf("%s\n", hand[pick]);
            fflush(stdout);
            memmove(hand[pick], hand[pick + 1], (size_t)(count - pick - 1) * sizeof hand[0]);
            count--;
        } else if (strncmp(line, "played ", 7) == 0) {
            if (!led) led = line[8];
        } else if (strcmp(line, "trickover") == 0) {
            led = 0;
        } else if (strcmp(line, "end") == 0) {
            return 0;
        }
    }
    return 4;
}
