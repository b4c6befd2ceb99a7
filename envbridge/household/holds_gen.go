// Code generated from ALFWORLD-FACTS.md (ALFWorld's task generator, MIT licence); DO NOT EDIT.

package household

// holdsTable is ALFWorld's "what can be placed where": receptacle type ->
// the object types it can hold (space separated).
var holdsTable = map[string]string{
	"armchair":          "basketball book box cellphone cloth creditcard keychain laptop newspaper pillow remotecontrol",
	"bathtubbasin":      "cloth dishsponge handtowel soapbar",
	"bed":               "baseballbat basketball book cellphone laptop newspaper pillow tennisracket",
	"bowl":              "apple butterknife candle cd cellphone cloth creditcard dishsponge egg fork keychain knife ladle lettuce mug papertowel pen pencil potato remotecontrol spatula spoon tomato watch",
	"box":               "alarmclock book candle cd cellphone cloth creditcard dishsponge glassbottle keychain mug papertowel pen pencil remotecontrol statue tissuebox vase watch",
	"cabinet":           "book bowl box candle cd cloth cup dishsponge glassbottle handtowel kettle ladle mug newspaper pan peppershaker plate plunger pot saltshaker soapbar soapbottle spraybottle tissuebox toiletpaper toiletpaperroll vase wateringcan winebottle",
	"cart":              "candle cloth dishsponge handtowel mug papertowel plunger soapbar soapbottle spraybottle statue tissuebox toiletpaper toiletpaperroll vase",
	"coffeemachine":     "mug",
	"coffeetable":       "alarmclock apple baseballbat basketball book bowl box bread butterknife candle cd cellphone cloth creditcard cup dishsponge egg fork glassbottle handtowel kettle keychain knife ladle laptop lettuce mug newspaper pan papertowel pen pencil peppershaker plate pot potato remotecontrol saltshaker soapbar soapbottle spatula spoon spraybottle statue tennisracket tissuebox toiletpaper toiletpaperroll tomato vase watch wateringcan winebottle",
	"countertop":        "alarmclock apple baseballbat basketball book bowl box bread butterknife candle cd cellphone cloth creditcard cup dishsponge egg fork glassbottle handtowel kettle keychain knife ladle laptop lettuce mug newspaper pan papertowel pen pencil peppershaker plate pot potato remotecontrol saltshaker soapbar soapbottle spatula spoon spraybottle statue tennisracket tissuebox toiletpaper toiletpaperroll tomato vase watch wateringcan winebottle",
	"cup":               "butterknife fork spoon",
	"desk":              "alarmclock basketball book bowl box candle cd cellphone cloth creditcard cup glassbottle keychain laptop mug newspaper pen pencil plate remotecontrol soapbottle spraybottle statue tennisracket tissuebox toiletpaper toiletpaperroll vase watch wateringcan winebottle",
	"diningtable":       "alarmclock apple baseballbat basketball book bowl box bread butterknife candle cd cellphone cloth creditcard cup dishsponge egg fork glassbottle handtowel kettle keychain knife ladle laptop lettuce mug newspaper pan papertowel pen pencil peppershaker plate pot potato remotecontrol saltshaker soapbar soapbottle spatula spoon spraybottle statue tennisracket tissuebox toiletpaper toiletpaperroll tomato vase watch wateringcan winebottle",
	"drawer":            "book butterknife candle cd cellphone cloth creditcard dishsponge fork handtowel keychain knife ladle newspaper pen pencil peppershaker remotecontrol saltshaker soapbar soapbottle spatula spoon spraybottle tissuebox toiletpaper toiletpaperroll watch wateringcan",
	"dresser":           "alarmclock basketball book bowl box candle cd cellphone cloth creditcard cup glassbottle keychain laptop mug newspaper pen pencil plate remotecontrol spraybottle statue tennisracket tissuebox toiletpaper toiletpaperroll vase watch wateringcan winebottle",
	"fridge":            "apple bowl bread cup egg glassbottle lettuce mug pan plate pot potato tomato winebottle",
	"garbagecan":        "apple bread cd cloth dishsponge egg handtowel lettuce newspaper papertowel pen pencil potato soapbar soapbottle spraybottle tissuebox toiletpaper toiletpaperroll tomato winebottle",
	"handtowelholder":   "handtowel",
	"laundryhamper":     "cloth",
	"microwave":         "apple bowl bread cup egg glassbottle mug plate potato tomato",
	"mug":               "butterknife fork keychain knife pen pencil spoon watch",
	"ottoman":           "basketball book box cellphone cloth creditcard keychain laptop newspaper pillow remotecontrol",
	"pan":               "apple butterknife dishsponge egg fork knife ladle lettuce potato spatula spoon tomato",
	"plate":             "alarmclock apple book butterknife candle cd cellphone cloth creditcard dishsponge egg fork glassbottle keychain knife ladle lettuce mug papertowel pen pencil potato spatula spoon tissuebox tomato watch",
	"pot":               "apple butterknife dishsponge egg fork knife ladle lettuce potato spatula spoon tomato",
	"safe":              "cd cellphone creditcard keychain statue vase watch",
	"shelf":             "alarmclock book bowl box candle cd cellphone cloth creditcard cup dishsponge glassbottle handtowel kettle keychain mug newspaper papertowel pen pencil peppershaker plate pot remotecontrol saltshaker soapbar soapbottle spraybottle statue tissuebox toiletpaper toiletpaperroll vase watch wateringcan winebottle",
	"sidetable":         "alarmclock apple baseballbat basketball book bowl box bread butterknife candle cd cellphone cloth creditcard cup dishsponge egg fork glassbottle handtowel kettle keychain knife ladle laptop lettuce mug newspaper pan papertowel pen pencil peppershaker plate pot potato remotecontrol saltshaker soapbar soapbottle spatula spoon spraybottle statue tennisracket tissuebox toiletpaper toiletpaperroll tomato vase watch wateringcan winebottle",
	"sinkbasin":         "apple bowl butterknife cloth cup dishsponge egg fork glassbottle handtowel kettle knife ladle lettuce mug pan plate pot potato soapbar spatula spoon tomato",
	"sofa":              "basketball book box cellphone cloth creditcard keychain laptop newspaper pillow remotecontrol",
	"stoveburner":       "kettle pan pot",
	"tvstand":           "tissuebox",
	"toaster":           "",
	"toilet":            "candle cloth dishsponge handtowel newspaper papertowel soapbar soapbottle spraybottle tissuebox toiletpaper toiletpaperroll",
	"toiletpaperhanger": "toiletpaper toiletpaperroll",
	"towelholder":       "towel",
}
