sh "$(dirname "$0")/frames.sh" 14
