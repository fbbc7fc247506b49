print("collect console logs")
